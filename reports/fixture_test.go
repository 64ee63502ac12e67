package reports

import (
	"math"
	"time"

	"github.com/ugbench/ugbench/runs"
	"github.com/ugbench/ugbench/suite"
)

// fixtureRuns is a hand-built grid: wl, gcn-topk, gin-topk, graphcl and ugnn on
// COIL-DEL and MNIST, low and high, seeds 0–2; ugnn-wo-s on MNIST only (so
// its COIL-DEL cells are empty). Deviations from the full grid:
//   - gin-topk/COIL-DEL/low seed 2 failed;
//   - graphcl/MNIST/high seed 1 was never run;
//   - wl/MNIST/low seed 0 finished with a NaN ood_f1;
//   - ugnn/COIL-DEL/high seed 0 has a second, later finished run that
//     replaces the first.
func fixtureRuns() []runs.Run {
	type m struct {
		name string
		acc  float64 // accuracy base
	}
	methods := []m{{"wl", 0.10}, {"gcn-topk", 0.35}, {"gin-topk", 0.40}, {"graphcl", 0.55}, {"ugnn", 0.60}, {"ugnn-wo-s", 0.52}}
	datasets := []struct {
		name   string
		shift  float64
		ratios [2]float64
	}{{"COIL-DEL", 0, [2]float64{0.05, 0.1}}, {"MNIST", -0.05, [2]float64{0.01, 0.03}}}
	// noise[seed] spreads the seeds; chosen by hand so that stds differ.
	noise := []float64{-0.012, 0.003, 0.009}
	t0 := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)

	var rs []runs.Run
	id := int64(0)
	for mi, meth := range methods {
		for di, ds := range datasets {
			if meth.name == "ugnn-wo-s" && ds.name != "MNIST" {
				continue
			}
			for ri, ratio := range []string{"low", "high"} {
				for seed := int64(0); seed < 3; seed++ {
					if meth.name == "graphcl" && ds.name == "MNIST" && ratio == "high" && seed == 1 {
						continue
					}
					id++
					spec := suite.RunSpec{
						Method: meth.name, Dataset: ds.name, RatioName: ratio,
						Ratio: ds.ratios[ri], Seed: seed,
						Params:   suite.Params{"epochs": 100},
						Protocol: suite.DefaultProtocol(),
					}
					scale := float64(mi+1) * 0.5 // noise grows with the row
					acc := meth.acc + ds.shift + 0.04*float64(ri) + noise[seed]*scale
					r := runs.Run{
						ID: id, Hash: spec.Hash(), Spec: spec, Status: runs.StatusFinished,
						Started:  t0.Add(time.Duration(id) * time.Minute),
						Finished: t0.Add(time.Duration(id)*time.Minute + 30*time.Second),
						Seconds:  30,
						Metrics: map[string]float64{
							suite.MetricAccuracy:   acc,
							suite.MetricOODF1:      acc*0.6 + 0.01*float64(di),
							suite.MetricUnknownAcc: acc*0.7 - 0.02*float64(seed),
							suite.MetricKnownAcc:   acc * 1.1,
							suite.MetricOODAUROC:   0.5 + acc/2,
						},
					}
					switch {
					case meth.name == "gin-topk" && ds.name == "COIL-DEL" && ratio == "low" && seed == 2:
						r.Status, r.Error, r.Metrics = runs.StatusFailed, "loss is NaN at epoch 3", nil
					case meth.name == "wl" && ds.name == "MNIST" && ratio == "low" && seed == 0:
						r.Metrics[suite.MetricOODF1] = math.NaN()
					}
					rs = append(rs, r)
				}
			}
		}
	}
	// A re-run of ugnn/COIL-DEL/high seed 0, finished later: it replaces
	// the first run's values.
	for _, r := range rs {
		if r.Spec.Method == "ugnn" && r.Spec.Dataset == "COIL-DEL" && r.Spec.RatioName == "high" && r.Spec.Seed == 0 {
			id++
			r.ID = id
			r.Finished = r.Finished.Add(time.Hour)
			r.Metrics = map[string]float64{
				suite.MetricAccuracy:   0.655,
				suite.MetricOODF1:      0.40,
				suite.MetricUnknownAcc: 0.45,
				suite.MetricKnownAcc:   0.70,
				suite.MetricOODAUROC:   0.83,
			}
			rs = append(rs, r)
			break
		}
	}
	return rs
}

// scoredFixtureRuns is fixtureRuns with post-hoc unknown scores (issue 28)
// stored on some runs as "label:metric", every other metric unchanged:
//   - gin-topk and ugnn, every finished run: msp (below native) and knn
//     (above native for gin-topk, below for ugnn; its spread grows with
//     the seed, so that the paired and unpaired tests differ);
//   - ugnn on COIL-DEL also mahalanobis, the best score of its rows there;
//   - ugnn/MNIST/low seed 2 lacks knn (a run not rescored).
func scoredFixtureRuns() []runs.Run {
	rs := fixtureRuns()
	for i := range rs {
		r := &rs[i]
		if r.Metrics == nil || (r.Spec.Method != "gin-topk" && r.Spec.Method != "ugnn") {
			continue
		}
		// A D^u accuracy for the du_choice score: below the test one, the
		// same offset under every score, so each run picks its score by
		// the test accuracy's shift (knn where the shift is highest).
		if a, ok := r.Metrics["accuracy"]; ok {
			r.Metrics["du_accuracy"] = a - 0.05
		}
		native := map[string]float64{}
		for k, v := range r.Metrics {
			native[k] = v
		}
		shift := map[string]float64{"msp": -0.03, "knn": 0.02 + 0.01*float64(r.Spec.Seed)}
		if r.Spec.Method == "ugnn" {
			shift["knn"] = -0.01 - 0.005*float64(r.Spec.Seed)
			if r.Spec.Dataset == "COIL-DEL" {
				shift["mahalanobis"] = 0.05
			}
			if r.Spec.Dataset == "MNIST" && r.Spec.RatioName == "low" && r.Spec.Seed == 2 {
				delete(shift, "knn")
			}
		}
		for score, d := range shift {
			for k, v := range native {
				r.Metrics[score+":"+k] = v + d
			}
		}
	}
	return rs
}
