// Package fetch downloads the benchmark's datasets from their official
// archives into the data directory: resumable (HTTP Range), SHA-256
// verified, unpacked into dataDir/NAME/ (`bench data fetch`), and checks
// what is present (`bench data verify`).
//
// Checksums: the SHA-256 sums below were measured on copies of the
// original archives (the TU zips as kept in bknyaz/graph_nn@72eaa1c6; the
// MNIST and CIFAR-10 files matching the official md5 sums;
// docs/datasets.md) — the official hosts cannot be reached from the
// machine that wrote this. Unpacked files are checked by the SHA-256 of
// their content, so a re-compressed archive with the same content passes.
package fetch

import "slices"

// File is one file of a dataset as it lands in dataDir/NAME/.
type File struct {
	// Member is the file's path inside the archive ("" when the archive is
	// the file itself).
	Member string
	// Name is the file's name in dataDir/NAME/.
	Name string
	// SHA256 is the hex SHA-256 of the file's content (uncompressed, when
	// the file is kept gzipped); "" if not recorded.
	SHA256 string
	// MD5 is the official hex MD5 of the content where no SHA-256 is
	// recorded (CIFAR-10's test batch); "" otherwise.
	MD5 string
}

// Archive is one download.
type Archive struct {
	// URL is the official download address.
	URL string
	// SHA256 is the hex SHA-256 of the archive itself, "" if not recorded
	// (then every file's content sum is checked instead).
	SHA256 string
	// Kind is how to unpack it: "zip", "tar.gz", or "gz" (kept as is: the
	// loaders read gzipped files).
	Kind string
	// Files are the files taken from it.
	Files []File
}

// Entry is a dataset's downloads.
type Entry struct {
	Name     string
	Archives []Archive
	// Note says where a checksum came from when it is weaker than the rest.
	Note string
}

// Verified reports whether every file of e is covered by a recorded
// checksum (of its archive or of its content).
func (e Entry) Verified() bool {
	for _, a := range e.Archives {
		if a.SHA256 != "" {
			continue
		}
		for _, f := range a.Files {
			if f.SHA256 == "" && f.MD5 == "" {
				return false
			}
		}
	}
	return true
}

// tuHost is the TUDataset collection's download host (Morris et al.,
// https://chrsmrrs.github.io/datasets/).
const tuHost = "https://www.chrsmrrs.com/graphkerneldatasets/"

// tu builds the entry of a TU dataset: NAME.zip holding NAME/NAME_*.txt.
func tu(name, zipSHA string, files ...[2]string) Entry {
	a := Archive{URL: tuHost + name + ".zip", SHA256: zipSHA, Kind: "zip"}
	for _, f := range files {
		a.Files = append(a.Files, File{Member: name + "/" + f[0], Name: f[0], SHA256: f[1]})
	}
	return Entry{Name: name, Archives: []Archive{a}}
}

// mnistHost serves the original MNIST .gz files (the mirror TensorFlow and
// torchvision use; yann.lecun.com no longer serves them without login).
const mnistHost = "https://storage.googleapis.com/cvdf-datasets/mnist/"

// Catalog lists every dataset fetch knows, in the paper's order, then the
// extra fixtures.
var Catalog = []Entry{
	tu("COIL-DEL", "418bc66f1f8191da3600dc14723c3ae528fda0fd0c2ed3c2befb4ec2ac2a818e",
		[2]string{"COIL-DEL_A.txt", "7b7970a56715fe47845618ac2f554251102b8d3079242c029eb98d635c69094e"},
		[2]string{"COIL-DEL_edge_labels.txt", "cf338830368c220c489f283c7e6594e984979239718df287f93a0f06c8c6d869"},
		[2]string{"COIL-DEL_graph_indicator.txt", "cd94e684fb13c1a9267f540f9a6567f4250c599de732a25e06d5c21561cf01dd"},
		[2]string{"COIL-DEL_graph_labels.txt", "24536ac3f082fd14e9be810b85539cea8f981ff2d221656a8fe329511849eb34"},
		[2]string{"COIL-DEL_node_attributes.txt", "9918b0de54ce4381aee8884888c49cc01e4c1976290b7f7c875ab358fe489bb8"}),
	tu("Letter-high", "050b0366502654084fbf5255afa896729c265f8c76b19a2f7c1c60338d15340c",
		[2]string{"Letter-high_A.txt", "b9d5e3689639436b28c12702dc8457f898c47711adbef51543a8e1235b3c2a16"},
		[2]string{"Letter-high_graph_indicator.txt", "1c22a863c1de1303676acb2e135f4988eeae5e329f0fdfb1895ee81599b6f1f4"},
		[2]string{"Letter-high_graph_labels.txt", "02743ad10af53fdb0fed32b7445ea7f53115b470050638ad5b3994e54f2371a3"},
		[2]string{"Letter-high_node_attributes.txt", "52f5f378ed49adabefeccba56a0038d52f0616ecd95b5258a442d2d828b67c73"}),
	{Name: "MNIST", Archives: []Archive{
		{URL: mnistHost + "train-images-idx3-ubyte.gz", Kind: "gz", Files: []File{{Name: "train-images-idx3-ubyte.gz", SHA256: "ba891046e6505d7aadcbbe25680a0738ad16aec93bde7f9b65e87a2fc25776db"}}},
		{URL: mnistHost + "train-labels-idx1-ubyte.gz", Kind: "gz", Files: []File{{Name: "train-labels-idx1-ubyte.gz", SHA256: "65a50cbbf4e906d70832878ad85ccda5333a97f0f4c3dd2ef09a8a9eef7101c5"}}},
		{URL: mnistHost + "t10k-images-idx3-ubyte.gz", Kind: "gz", Files: []File{{Name: "t10k-images-idx3-ubyte.gz", SHA256: "0fa7898d509279e482958e8ce81c8e77db3f2f8254e26661ceb7762c4d494ce7"}}},
		{URL: mnistHost + "t10k-labels-idx1-ubyte.gz", Kind: "gz", Files: []File{{Name: "t10k-labels-idx1-ubyte.gz", SHA256: "ff7bcfd416de33731a308c3f266cc351222c34898ecbeaf847f06e48f7ec33f2"}}},
	}},
	{Name: "CIFAR10", Archives: []Archive{{URL: "https://www.cs.toronto.edu/~kriz/cifar-10-binary.tar.gz", Kind: "tar.gz", Files: []File{
		{Member: "cifar-10-batches-bin/data_batch_1.bin", Name: "data_batch_1.bin", SHA256: "cee916563c9f80d84e3cc88e17fdc0941787f1244f00a67874d45b261883ada5"},
		{Member: "cifar-10-batches-bin/data_batch_2.bin", Name: "data_batch_2.bin", SHA256: "a591ca11fa1708a91ee40f54b3da4784ccd871ecf2137de63f51ada8b3fa57ed"},
		{Member: "cifar-10-batches-bin/data_batch_3.bin", Name: "data_batch_3.bin", SHA256: "bbe8596564c0f86427f876058170b84dac6670ddf06d79402899d93ceea26f67"},
		{Member: "cifar-10-batches-bin/data_batch_4.bin", Name: "data_batch_4.bin", SHA256: "014e562d6e23c72197cc727519169a60359f5eccd8945ad5a09d710285ff4e48"},
		{Member: "cifar-10-batches-bin/data_batch_5.bin", Name: "data_batch_5.bin", SHA256: "755304fc0b379caeae8c14f0dac912fbc7d6cd469eb67a1029a08a39453a9add"},
		{Member: "cifar-10-batches-bin/test_batch.bin", Name: "test_batch.bin", MD5: "803d5f7f4d78ea53de84dbe85f74fb6d"},
	}}}, Note: "test_batch.bin: official MD5 only (no copy here to measure a SHA-256)"},
	{Name: "REDDIT-MULTI-12K", Archives: []Archive{{URL: tuHost + "REDDIT-MULTI-12K.zip", Kind: "zip",
		SHA256: "dc133043edae3df088a4bfbd09595f105c0a6e2df533662b6ddc7d3268b5b49b",
		Files: []File{
			{Member: "REDDIT-MULTI-12K/REDDIT-MULTI-12K_A.txt", Name: "REDDIT-MULTI-12K_A.txt"},
			{Member: "REDDIT-MULTI-12K/REDDIT-MULTI-12K_graph_indicator.txt", Name: "REDDIT-MULTI-12K_graph_indicator.txt"},
			{Member: "REDDIT-MULTI-12K/REDDIT-MULTI-12K_graph_labels.txt", Name: "REDDIT-MULTI-12K_graph_labels.txt"},
		}}}, Note: "archive SHA-256 as listed by a public loader (docs/datasets.md); not measured here"},
	{Name: "COLORS-3", Archives: []Archive{{URL: tuHost + "COLORS-3.zip", Kind: "zip", Files: []File{
		{Member: "COLORS-3/COLORS-3_A.txt", Name: "COLORS-3_A.txt"},
		{Member: "COLORS-3/COLORS-3_graph_indicator.txt", Name: "COLORS-3_graph_indicator.txt"},
		{Member: "COLORS-3/COLORS-3_graph_attributes.txt", Name: "COLORS-3_graph_attributes.txt"},
		{Member: "COLORS-3/COLORS-3_node_attributes.txt", Name: "COLORS-3_node_attributes.txt"},
	}}}, Note: "no checksum recorded: the project's copy is an earlier version of the archive (docs/datasets.md)"},

	tu("Letter-low", "d467a2f035cfc46f9120215a8d1a22f134743f357faa9a518302e8928721d3c3",
		[2]string{"Letter-low_A.txt", "02490c27238378b7129c66947453a6ea89990b4563cc25ed12106e16af66e0c8"},
		[2]string{"Letter-low_graph_indicator.txt", "08d108cf7bee81c60a7f5fc3ed1186f2e61b423d6afdd4c7c860831346395341"},
		[2]string{"Letter-low_graph_labels.txt", "9bd347855c171eae41dfaef44f12a57a540e94b9bc67e3c127814ee463df1fac"},
		[2]string{"Letter-low_node_attributes.txt", "b86ef1fc95080914bc42d52e2b7d37bb25b6bbc37a2a4bef4192fd3ca947a7c2"}),
	tu("Letter-med", "914c1bc0b59de0f8d745ba34c7ce8ab13a435c40ef76966342955472edd5e5cf",
		[2]string{"Letter-med_A.txt", "382924343ed5713631ede688c95562a6c898df2f404f9f2686160cd7c8789623"},
		[2]string{"Letter-med_graph_indicator.txt", "cb7be208e71d47751e02425de350d4d58876cab58892d1676fecb610bf8f26f8"},
		[2]string{"Letter-med_graph_labels.txt", "36dc3e83a6f10ba724c1b5c4ebd100888ed3ecf4061223a9442c67b03d6fea31"},
		[2]string{"Letter-med_node_attributes.txt", "265fe55393f0a99466c60929da32c3f1a46328db23e747e685f8438b08f75043"}),
	tu("COIL-RAG", "eb0744819950aceb59e55059b234a0e0febd997abe8b5c974066cdbd9609a0a9",
		[2]string{"COIL-RAG_A.txt", "faedb615259e1bfcbc32ca7c23e268849ad42593198a9fb92c38983e9b240da7"},
		[2]string{"COIL-RAG_edge_attributes.txt", "bb4346f8f0a726c55be11d5ab1a7cee82e3561f2d23bc14625fc2bc59575dff5"},
		[2]string{"COIL-RAG_graph_indicator.txt", "8581a3c55fd7df94fd947100d42757a963f1243953e0b39cbe05c39a11539be5"},
		[2]string{"COIL-RAG_graph_labels.txt", "57f597c46abc4fa4d30cd41ed4b65756f55f8a711a08579b25afe717c32a0aa1"},
		[2]string{"COIL-RAG_node_attributes.txt", "66b9ac8d6b5fb82ce72ed77dcbc32000d492ba93deb8079321babe2fa3496981"}),
	tu("IMDB-BINARY", "2a4abb6431ec1ab025a6fbcd3b546607191f79a1e0aef0f42cd8bd4ec1546116",
		[2]string{"IMDB-BINARY_A.txt", "23c8964bab82f81469271186d721131714a265d0ca8c44ae048118da1d0c4092"},
		[2]string{"IMDB-BINARY_graph_indicator.txt", "415cc3ba25b8c647dcf34d3de034f675ee070616f3b803be939cb26773489f26"},
		[2]string{"IMDB-BINARY_graph_labels.txt", "63a44411fd6342b9c4429828c16e144a2a11ef5244e25bb60f0ffa8b3ee2ffce"}),
	tu("IMDB-MULTI", "1d22bb88ee69f9f7c09eb7f072dadec56e3f91ad4b14cfd99231379b68073883",
		[2]string{"IMDB-MULTI_A.txt", "fb538b23758d78df199272301e57dc74ad5754d6c3d79d5ed0a343193ddf4ec6"},
		[2]string{"IMDB-MULTI_graph_indicator.txt", "0274532a0e47dad9cdd21c08995c2265e43040a2c2a3b36c62fdb790994571d3"},
		[2]string{"IMDB-MULTI_graph_labels.txt", "613c2357b6b996f6f04b91697a99da87774820f9d08bf22813992f4c7afda855"}),
}

// Lookup returns the catalog entry of name.
func Lookup(name string) (Entry, bool) {
	i := slices.IndexFunc(Catalog, func(e Entry) bool { return e.Name == name })
	if i < 0 {
		return Entry{}, false
	}
	return Catalog[i], true
}

// Names lists the catalog's dataset names in order.
func Names() []string {
	out := make([]string, len(Catalog))
	for i, e := range Catalog {
		out[i] = e.Name
	}
	return out
}
