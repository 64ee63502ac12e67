package semisup

import (
	"context"
	"math"
	"strings"
	"testing"

	. "github.com/gomlx/gomlx/core/graph" //nolint:staticcheck // GoMLX idiom
	"github.com/gomlx/gomlx/core/tensors"
	"github.com/gomlx/gomlx/ml/model"

	"github.com/ugbench/ugbench/methods/gnn"
	"github.com/ugbench/ugbench/suite"
)

// TestNodeSoftmax: raw scores [1,2,3] (plus a padding node) give
// softmax(s/5) = [0.26930749918, 0.32893292229, 0.40175957853] and 0 on
// the padding node.
func TestNodeSoftmax(t *testing.T) {
	out := MustExecOnce(testBackend(t), func(s, m *Node) *Node { return NodeSoftmax(DivScalar(s, 5), m) },
		tensorOf([][]float64{{1, 2, 3, 40}}), tensorOf([][]float64{{1, 1, 1, 0}}))
	got := tensors.MustCopyFlatData[float32](out)
	for i, want := range []float64{0.26930749918, 0.32893292229, 0.40175957853, 0} {
		if math.Abs(float64(got[i])-want) > 1e-6 {
			t.Errorf("p[%d] = %v, want %v", i, got[i], want)
		}
	}
}

// TestRGCLNodeWeights: p = [0.2, 0.5, 0.3] gives w = [0.94, 1, 0.96]; the
// top node gets exactly 1, and a padding node (with a larger p) is left
// out of the max and weighted 0.
func TestRGCLNodeWeights(t *testing.T) {
	out := MustExecOnce(testBackend(t), func(p, m *Node) *Node { return RGCLNodeWeights(p, m, 0.9) },
		tensorOf([][]float64{{0.2, 0.5, 0.3, 0.9}}), tensorOf([][]float64{{1, 1, 1, 0}}))
	got := tensors.MustCopyFlatData[float32](out)
	for i, want := range []float64{0.94, 1, 0.96, 0} {
		if math.Abs(float64(got[i])-want) > 1e-6 {
			t.Errorf("w[%d] = %v, want %v", i, got[i], want)
		}
	}
	if got[1] != 1 {
		t.Errorf("top node weight %v, want exactly 1", got[1])
	}
}

// TestRGCLGradientRoute: with the batch fixed, a loss of the weighted
// encoder's output has a non-zero gradient on the explainer's variables
// (the weights are ψ's only route); with p under StopGradient it is 0.
// Dense layout (the graph below reads x, adj, mask).
func TestRGCLGradientRoute(t *testing.T) {
	task := tinyTask(t, "rgcl", suite.Params{"layout": "dense"})
	n, err := newNet(task)
	if err != nil {
		t.Fatal(err)
	}
	defer n.close()
	enc := gnn.EncoderConfig{Conv: gnn.ConvGIN, Pool: gnn.PoolTopK, Hidden: 8, LayersPerStage: 2, PoolRatio: 0.8}
	in, _ := n.original([]int{0, 1, 2, 3})
	for _, frozen := range []bool{false, true} {
		store := model.NewStore()
		if err := gnn.SetSeed(store, 1); err != nil {
			t.Fatal(err)
		}
		e, err := model.NewExec(n.backend, store, func(scope *model.Scope, in []*Node) []*Node {
			p := RGCLExplainer(scope.At("explainer"), in[0], in[1], in[2], 3, 8, 5)
			if frozen {
				p = StopGradient(p)
			}
			z := gnn.EncodeNodes(scope.At("encoder"), enc, in[0], in[1], in[2], RGCLNodeWeights(p, in[2], 0.9)).Z
			loss := ReduceAllSum(Square(z))
			var total *Node
			for _, g := range scope.At("explainer").BuildTrainableVariablesGradientsGraph(loss) {
				s := ReduceAllSum(Abs(g))
				if total == nil {
					total = s
				} else {
					total = Add(total, s)
				}
			}
			return []*Node{total}
		})
		if err != nil {
			t.Fatal(err)
		}
		out, err := e.Exec(in[:3]...)
		if err != nil {
			t.Fatal(err)
		}
		g := scalar(out[0])
		if frozen && g != 0 {
			t.Errorf("StopGradient(p): explainer gradient %v, want 0", g)
		}
		if !frozen && !(g > 0) {
			t.Errorf("explainer gradient %v, want > 0", g)
		}
		e.Finalize()
	}
}

// recordLog keeps every logged epoch value by name.
type recordLog map[string][]float64

func (r recordLog) Epoch(_, _ int, v map[string]float64) {
	for k, x := range v {
		r[k] = append(r[k], x)
	}
}

// TestRGCLLossForms: each official loss form pretrains on the tiny task
// (5–8-node trees) with finite losses, and its keep count decides which
// rationale views are unchanged: at rho 0.8 the tu form keeps every node of
// the 5-node graphs (⌊5·(1−0.8)⌋ = 0 in float64, as its official code),
// while chem and mnist drop ⌊0.2n⌋ ≥ 1 of every graph.
func TestRGCLLossForms(t *testing.T) {
	base := suite.Params{"steps": 3, "batch_size": 4, "unlabelled_batch_size": 8, "hidden": 8, "pretrain_epochs": 2, "rho": 0.8}
	fives := 0
	for _, g := range tinyTask(t, "rgcl", nil).Graphs {
		if g.NumNodes == 5 {
			fives++
		}
	}
	if fives == 0 {
		t.Fatal("tiny task has no 5-node graph")
	}
	for _, tc := range []struct {
		form      string
		unchanged float64
	}{{"tu", float64(fives)}, {"chem", 0}, {"mnist", 0}} {
		t.Run(tc.form, func(t *testing.T) {
			set := suite.Params{"loss_form": tc.form}
			for k, v := range base {
				set[k] = v
			}
			task := tinyTask(t, "rgcl", set)
			log := recordLog{}
			task.Log = log
			if _, err := (rgcl{}).Fit(context.Background(), task); err != nil {
				t.Fatal(err)
			}
			if len(log["pretrain_loss"]) != 2 {
				t.Fatalf("pretrain_loss points %v, want 2", log["pretrain_loss"])
			}
			for _, l := range log["pretrain_loss"] {
				if math.IsNaN(l) || math.IsInf(l, 0) {
					t.Errorf("pretrain_loss %v", log["pretrain_loss"])
				}
			}
			for _, u := range log["unchanged_views"] {
				if u != tc.unchanged {
					t.Errorf("unchanged rationale views per epoch %v, want %v", log["unchanged_views"], tc.unchanged)
					break
				}
			}
		})
	}
	if _, err := (rgcl{}).Fit(context.Background(), tinyTask(t, "rgcl", suite.Params{"loss_form": "simclr"})); err == nil || !strings.Contains(err.Error(), "loss_form") {
		t.Errorf("loss_form simclr: error %v, want one naming loss_form", err)
	}
}
