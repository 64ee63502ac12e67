package datasets

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sync"
)

// UserConfigFile is the name of the per-dataset config file that registers
// a user's own dataset: dataDir/NAME/dataset.json.
//
// A TU-format dataset (NAME_A.txt[.gz] and the rest beside it):
//
//	{"format": "tu", "known": 7, "low": 0.3, "high": 0.7}
//
// An image set in MNIST's IDX format, turned into superpixel graphs like
// MNIST (the superpixel fields are optional and default to MNIST-75sp's):
//
//	{"format": "idx", "known": 7, "low": 0.01, "high": 0.03,
//	 "images": "train-images-idx3-ubyte", "labels": "train-labels-idx1-ubyte",
//	 "superpixels": {"max_nodes": 75, "extra_ask": 20, "compactness": 0.25}}
//
// "known" is |C^l| (the first "known" class ids are the known classes
// unless --class-split random), "low"/"high" the labelled ratios of
// `--ratios low,high`; "classes" may be given and is then checked against
// the data. IDX images may be N×H×W (grayscale) or N×H×W×3 (RGB); image
// files are read plain or gzipped.
const UserConfigFile = "dataset.json"

// UserConfig is the content of a UserConfigFile.
type UserConfig struct {
	Format      string  `json:"format"`
	Classes     int     `json:"classes,omitempty"`
	Known       int     `json:"known"`
	Low         float64 `json:"low"`
	High        float64 `json:"high"`
	NodeFeature string  `json:"node_feature,omitempty"`
	Images      string  `json:"images,omitempty"`
	Labels      string  `json:"labels,omitempty"`
	Superpixels *struct {
		MaxNodes    int     `json:"max_nodes"`
		ExtraAsk    int     `json:"extra_ask"`
		Compactness float64 `json:"compactness"`
	} `json:"superpixels,omitempty"`
}

// Format values of UserConfig.Format besides FormatTU.
const (
	// FormatIDX is an IDX image set turned into superpixel graphs.
	FormatIDX = "idx"
)

var (
	userMu    sync.Mutex
	userInfos = map[string]userDataset{}
)

// userDataset is a registered user dataset.
type userDataset struct {
	info Info
	cfg  UserConfig
	path string // the config file
}

// lookupUserInfo returns the protocol entry of a registered user dataset.
func lookupUserInfo(name string) (Info, bool) {
	userMu.Lock()
	defer userMu.Unlock()
	u, ok := userInfos[name]
	return u.info, ok
}

// ReadUserConfig reads and checks one config file; errors name the file
// (and the line of a JSON syntax error).
func ReadUserConfig(path string) (UserConfig, error) {
	var c UserConfig
	b, err := os.ReadFile(path)
	if err != nil {
		return c, err
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&c); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			line := bytes.Count(b[:se.Offset], []byte("\n")) + 1
			return c, fmt.Errorf("%s:%d: %v", path, line, err)
		}
		return c, fmt.Errorf("%s: %v", path, err)
	}
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%s: %s", path, fmt.Sprintf(format, args...))
	}
	switch c.Format {
	case FormatTU:
		if c.Images != "" || c.Labels != "" || c.Superpixels != nil {
			return c, bad(`"images", "labels" and "superpixels" are for format "idx"`)
		}
	case FormatIDX:
		if c.Images == "" || c.Labels == "" {
			return c, bad(`format "idx" needs "images" and "labels" (IDX file names in the same folder)`)
		}
		if s := c.Superpixels; s != nil && (s.MaxNodes < 1 || s.MaxNodes > 65535 || s.ExtraAsk < 0 || s.Compactness <= 0) {
			return c, bad(`"superpixels": want max_nodes in 1..65535, extra_ask ≥ 0, compactness > 0`)
		}
	default:
		return c, bad(`"format" %q: want "tu" or "idx"`, c.Format)
	}
	if c.Known < 1 {
		return c, bad(`"known" %d: want at least 1 known class`, c.Known)
	}
	if c.Classes != 0 && c.Known >= c.Classes {
		return c, bad(`"known" %d: want fewer than "classes" %d (some classes must be unknown)`, c.Known, c.Classes)
	}
	for _, r := range []struct {
		n string
		v float64
	}{{"low", c.Low}, {"high", c.High}} {
		if !(r.v > 0 && r.v <= 1) {
			return c, bad(`%q %g: want a ratio in (0, 1]`, r.n, r.v)
		}
	}
	return c, nil
}

// RegisterUserDatasets reads dataDir/*/dataset.json (see UserConfigFile)
// and registers each as a protocol entry (LookupInfo, ResolveRatio) and a
// loadable dataset (Load). A name of a built-in dataset or a bad config is
// an error naming the file; a missing dataDir registers nothing. It returns
// the names registered.
func RegisterUserDatasets(dataDir string) ([]string, error) {
	entries, err := os.ReadDir(dataDir)
	if err != nil {
		return nil, nil
	}
	var names []string
	for _, e := range entries {
		if st, err := os.Stat(filepath.Join(dataDir, e.Name())); err != nil || !st.IsDir() {
			continue
		}
		path := filepath.Join(dataDir, e.Name(), UserConfigFile)
		if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
			continue
		}
		name := e.Name()
		if slices.ContainsFunc(infos, func(in Info) bool { return in.Name == name }) {
			return names, fmt.Errorf("%s: %s is a built-in dataset with its own protocol entry; rename the folder", path, name)
		}
		c, err := ReadUserConfig(path)
		if err != nil {
			return names, err
		}
		feat := c.NodeFeature
		if feat == "" && c.Format == FormatIDX {
			feat = "superpixel mean colour + centroid (row, col)"
		}
		in := Info{Name: name, Classes: c.Classes, Known: c.Known, Low: c.Low, High: c.High, Format: c.Format, NodeFeature: feat}
		if c.Format == FormatIDX {
			in.Format = FormatSuperpixel
		}
		userMu.Lock()
		userInfos[name] = userDataset{info: in, cfg: c, path: path}
		userMu.Unlock()
		names = append(names, name)
	}
	return names, nil
}

// userSource returns the superpixel source of a registered IDX user
// dataset.
func userSource(name string) (superpixelSource, bool) {
	userMu.Lock()
	u, ok := userInfos[name]
	userMu.Unlock()
	if !ok || u.cfg.Format != FormatIDX {
		return superpixelSource{}, false
	}
	p := MNISTSuperpixels
	if s := u.cfg.Superpixels; s != nil {
		p.MaxNodes, p.ExtraAsk, p.Compactness = s.MaxNodes, s.ExtraAsk, s.Compactness
	}
	return superpixelSource{
		Name:   name,
		Params: p,
		Files:  []string{u.cfg.Images, u.cfg.Labels},
		Pool:   "all",
		Read: func(paths []string) (*imageSet, error) {
			s, err := readIDXImages(paths[0], paths[1])
			if err != nil {
				return nil, err
			}
			if s.C != 1 && s.C != 3 {
				return nil, fmt.Errorf("%s: %d channels, want 1 or 3", filepath.Base(paths[0]), s.C)
			}
			return s, nil
		},
	}, true
}

// checkUserClasses checks a loaded user dataset against its config's
// "classes" (if given) and "known".
func checkUserClasses(ds *Dataset) error {
	userMu.Lock()
	u, ok := userInfos[ds.Name]
	userMu.Unlock()
	if !ok {
		return nil
	}
	if u.cfg.Classes != 0 && u.cfg.Classes != ds.NumClasses {
		return fmt.Errorf("%s: \"classes\" %d, but the data has %d classes", u.path, u.cfg.Classes, ds.NumClasses)
	}
	if u.cfg.Known >= ds.NumClasses {
		return fmt.Errorf("%s: \"known\" %d, but the data has only %d classes (some must be unknown)", u.path, u.cfg.Known, ds.NumClasses)
	}
	if u.cfg.Classes == 0 {
		userMu.Lock()
		u.info.Classes = ds.NumClasses
		userInfos[ds.Name] = u
		userMu.Unlock()
	}
	return nil
}
