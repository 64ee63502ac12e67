package semisup

import (
	"testing"

	"github.com/ugbench/ugbench/datasets/datasetstest"
	"github.com/ugbench/ugbench/methods/gnn"
	"github.com/ugbench/ugbench/suite"
)

// TestPretrainEpochs: the cap keeps every epoch while they fit in
// capFactor·steps optimizer steps, cuts to whole epochs above, never below
// one, and 0 turns it off.
func TestPretrainEpochs(t *testing.T) {
	for _, c := range []struct {
		name                       string
		epochs                     int
		capFactor                  float64
		steps, poolSize, ubatch, w int
	}{
		{"fits", 100, 2, 500, 1800, 256, 100},          // 8 steps/epoch: 800 ≤ 1,000
		{"exactly", 100, 2, 400, 1800, 256, 100},       // 800 = 800
		{"cut", 100, 2, 2000, 44000, 256, 23},          // 172 steps/epoch: ⌊4,000/172⌋
		{"one-step-short", 100, 2, 399, 1800, 256, 99}, // ⌊798/8⌋
		{"at-least-one", 100, 1, 5, 44000, 256, 1},
		{"off", 100, 0, 5, 44000, 256, 100},
		{"no-epochs", 0, 2, 5, 44000, 256, 0},
	} {
		if got := pretrainEpochs(c.epochs, c.capFactor, c.steps, c.poolSize, c.ubatch); got != c.w {
			t.Errorf("%s: pretrainEpochs(%d, %g, %d, %d, %d) = %d, want %d", c.name, c.epochs, c.capFactor, c.steps, c.poolSize, c.ubatch, got, c.w)
		}
	}
}

// TestPretrainCapKeepsOfficialRecipe: at the protocol's budgets and every
// row's defaults the cap does not bind on the datasets of the stored grids
// (both ratios, split seed 0), so GraphCL and RGCL pretrain their official
// 100 and 40 epochs there, as every stored run did; this is why
// pretrain_step_cap hashes as absent at its default. (On MNIST, whose pool
// is ~44,000 graphs, it binds: TestPretrainEpochs' "cut".)
func TestPretrainCapKeepsOfficialRecipe(t *testing.T) {
	forStoredGridTasks(t, []string{"graphcl", "rgcl"}, func(t *testing.T, spec suite.RunSpec, task *suite.Task) {
		got, full := pretrainEpochsOf(task), paramPretrainEpoch.Get(spec.Params)
		if got != full {
			t.Errorf("%s %s: %d of %d pretraining epochs (pool %d, steps %d); want all",
				spec.Method, spec.RatioName, got, full, len(task.TrainPool()), gnn.ParamSteps.Get(spec.Params))
		}
	})
}

// forStoredGridTasks calls f with the task of every run spec of methods on
// the datasets of the stored grids (Letter-high, COIL-DEL), both ratios,
// split seed 0, run seed 0, with the protocol's defaults; each dataset is a
// subtest, skipped where its data is absent.
func forStoredGridTasks(t *testing.T, methods []string, f func(t *testing.T, spec suite.RunSpec, task *suite.Task)) {
	for _, name := range []string{"Letter-high", "COIL-DEL"} {
		t.Run(name, func(t *testing.T) {
			ds := datasetstest.Load(t, name)
			specs, err := suite.Expand(suite.GridConfig{Methods: methods, Datasets: []string{name},
				Ratios: []string{"low", "high"}, Seeds: []int64{0}, Protocol: suite.DefaultProtocol()})
			if err != nil {
				t.Fatal(err)
			}
			for _, spec := range specs {
				split, err := suite.MakeSplit(ds, spec)
				if err != nil {
					t.Fatal(err)
				}
				f(t, spec, suite.NewTask(ds, split, spec, spec.Params))
			}
		})
	}
}

// TestUnlabelledBatchCap: the cap is the whole batches that hold the
// multiple of D^l's graphs, at least one, and 0 turns it off.
func TestUnlabelledBatchCap(t *testing.T) {
	for _, c := range []struct {
		perLabelled            float64
		labelled, ubatch, want int
	}{
		{8, 308, 256, 9}, // MNIST low: 2,464 graphs of its 43,692
		{8, 240, 256, 7},
		{8, 240, 64, 30},
		{1, 100, 256, 1},
		{0, 308, 256, 0},
	} {
		if got := unlabelledBatchCap(c.perLabelled, c.labelled, c.ubatch); got != c.want {
			t.Errorf("unlabelledBatchCap(%g, %d, %d) = %d, want %d", c.perLabelled, c.labelled, c.ubatch, got, c.want)
		}
	}
}

// TestGLAUnlabelledCapKeepsOfficialRecipe: at GLA's defaults the cap of a
// pass over D^u is above D^u's batches on the datasets of the stored grids
// (both ratios, split seed 0), so GLA passes over all of D^u there, as every
// stored run did; unlabelled_per_labelled hashes as absent at its default.
func TestGLAUnlabelledCapKeepsOfficialRecipe(t *testing.T) {
	forStoredGridTasks(t, []string{"gla"}, func(t *testing.T, spec suite.RunSpec, task *suite.Task) {
		p := spec.Params
		ub := gnn.ParamUnlabelledBatchSize.Get(p)
		need := (len(task.Unlabelled) + ub - 1) / ub
		c := unlabelledBatchCap(glaUnlabelledCap.Get(p), len(task.Labelled), ub)
		t.Logf("%s: D^l %d, D^u %d: %d batches, cap %d", spec.RatioName, len(task.Labelled), len(task.Unlabelled), need, c)
		if c < need {
			t.Errorf("%s: cap %d < %d batches of D^u (%d labelled, %d unlabelled)", spec.RatioName, c, need, len(task.Labelled), len(task.Unlabelled))
		}
	})
}
