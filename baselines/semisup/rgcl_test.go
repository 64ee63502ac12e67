package semisup

import (
	"math"
	"testing"

	. "github.com/gomlx/gomlx/core/graph" //nolint:staticcheck // GoMLX idiom
	"github.com/gomlx/gomlx/core/tensors"
	"github.com/gomlx/gomlx/ml/model"

	"github.com/ugbench/ugbench/methods/gnn"
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
func TestRGCLGradientRoute(t *testing.T) {
	task := tinyTask(t, "rgcl", nil)
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
