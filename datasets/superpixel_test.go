package datasets

import (
	"path/filepath"
	"testing"
)

// realImages reads the real MNIST training images and CIFAR-10's
// data_batch_1, skipping tb when they are absent.
func realImages(tb testing.TB) (mnist, cifar *imageSet) {
	tb.Helper()
	requireData(tb, "MNIST")
	requireData(tb, "CIFAR10")
	mnist, err := readIDXImages(filepath.Join(sharedData, "MNIST", "train-images-idx3-ubyte.gz"),
		filepath.Join(sharedData, "MNIST", "train-labels-idx1-ubyte.gz"))
	if err != nil {
		tb.Fatal(err)
	}
	cifar, err = readCIFARBatch(filepath.Join(sharedData, "CIFAR10", "data_batch_1.bin.gz"))
	if err != nil {
		tb.Fatal(err)
	}
	return mnist, cifar
}

// TestSuperpixelNodeCountsReal checks the node counts of 27 images against
// those of an independent Python re-statement of skimage 0.15 (six of them
// are printed by Dwivedi's benchmarking-gnns
// prepare_superpixels_{MNIST,CIFAR}.ipynb; docs/datasets.md, "Build, cache
// and checks").
func TestSuperpixelNodeCountsReal(t *testing.T) {
	mnTrain, cfTrain := realImages(t)
	mnTest, err := readIDXImages(filepath.Join(sharedData, "MNIST", "t10k-images-idx3-ubyte.gz"),
		filepath.Join(sharedData, "MNIST", "t10k-labels-idx1-ubyte.gz"))
	if err != nil {
		t.Fatal(err)
	}
	cfTest, err := readCIFARBatch(filepath.Join(sharedData, "CIFAR10", "test_batch_first1000.bin.gz"))
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name  string
		set   *imageSet
		p     SuperpixelParams
		first int
		want  []int
	}{
		{"MNIST train 0..9", mnTrain, MNISTSuperpixels, 0, []int{71, 71, 75, 74, 73, 71, 48, 69, 47, 74}},
		{"MNIST train 5000", mnTrain, MNISTSuperpixels, 5000, []int{69}},
		{"MNIST test 0..4", mnTest, MNISTSuperpixels, 0, []int{74, 71, 46, 66, 75}},
		{"CIFAR train 0..4", cfTrain, CIFAR10Superpixels, 0, []int{123, 120, 116, 121, 112}},
		{"CIFAR train 5000", cfTrain, CIFAR10Superpixels, 5000, []int{110}},
		{"CIFAR test 0..4", cfTest, CIFAR10Superpixels, 0, []int{118, 126, 119, 119, 119}},
	}
	for _, c := range cases {
		for k, want := range c.want {
			i := c.first + k
			feats, n, err := superpixelNodes(c.set.Image(i), c.set.H, c.set.W, c.set.C, c.p)
			if err != nil {
				t.Fatalf("%s image %d: %v", c.name, i, err)
			}
			if n != want {
				t.Errorf("%s: image %d has %d superpixels, want %d", c.name, i, n, want)
			}
			g := superpixelGraph(feats, n, c.set.C+2, c.p.K)
			if g.NumEdges() != 8*n {
				t.Errorf("%s: image %d has %d directed edges, want 8·%d", c.name, i, g.NumEdges(), n)
			}
		}
	}
}

// BenchmarkSuperpixelImage times the builder on one image (SLIC request
// loop, features and kNN graph): MNIST train 0..99 and CIFAR data_batch_1
// 0..99, cycling. Multiply by 55,000 / 45,000 for a one-core build.
func BenchmarkSuperpixelImage(b *testing.B) {
	mn, cf := realImages(b)
	for _, c := range []struct {
		name string
		set  *imageSet
		p    SuperpixelParams
	}{{"MNIST", mn, MNISTSuperpixels}, {"CIFAR10", cf, CIFAR10Superpixels}} {
		b.Run(c.name, func(b *testing.B) {
			i := 0
			for b.Loop() {
				f, n, err := superpixelNodes(c.set.Image(i%100), c.set.H, c.set.W, c.set.C, c.p)
				if err != nil {
					b.Fatal(err)
				}
				superpixelGraph(f, n, c.set.C+2, c.p.K)
				i++
			}
		})
	}
}
