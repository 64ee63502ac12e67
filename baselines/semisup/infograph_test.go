package semisup

import (
	"strings"
	"testing"

	. "github.com/gomlx/gomlx/core/graph" //nolint:staticcheck // GoMLX idiom
	"github.com/gomlx/gomlx/core/tensors"
	"github.com/gomlx/gomlx/ml/model"

	"github.com/ugbench/ugbench/methods/gnn"
)

// TestInfoGraphSeparateEncoders: the gradient of L_lg alone is non-zero
// only on ϕ (unsup_encoder), local_d and global_d; that of the
// cross-entropy alone only on φ (sup_encoder) and the head; L_gg reaches
// both encoders and ff1, ff2 (as in the official code, where the two
// encoders share no weights).
func TestInfoGraphSeparateEncoders(t *testing.T) {
	task := tinyTask(t, "infograph", nil)
	n, err := newNet(task)
	if err != nil {
		t.Fatal(err)
	}
	defer n.close()
	enc := gnn.EncoderConfig{Conv: gnn.ConvGIN, Pool: gnn.PoolTopK, Hidden: 8, LayersPerStage: 1, PoolRatio: 0.8}
	li, ui := []int{0, 1, 2, 3}, []int{12, 13, 14, 15, 16}
	lab, unl := n.layOriginal(li, n.plan(li)), n.layOriginal(ui, n.plan(ui))
	args := lab.args(append([]any{n.labelsOf(li, lab)}, unl.args()...)...)
	for _, tc := range []struct {
		term    int // 0 ce, 1 lg, 2 gg
		reaches []string
	}{
		{0, []string{"/sup_encoder/", "/head/"}},
		{1, []string{"/unsup_encoder/", "/local_d/", "/global_d/"}},
		{2, []string{"/sup_encoder/", "/unsup_encoder/", "/ff1/", "/ff2/"}},
	} {
		store := model.NewStore()
		if err := gnn.SetSeed(store, 1); err != nil {
			t.Fatal(err)
		}
		var names []string
		e, err := model.NewExec(n.backend, store, func(scope *model.Scope, in []*Node) []*Node {
			ce, lg, gg := infoGraphLosses(scope, enc, 2, in)
			loss := []*Node{ce, lg, gg}[tc.term]
			// Every variable of all three terms is in the graph; the
			// gradient of the chosen term is taken on all of them.
			anchor := Add(ce, Add(lg, gg))
			grads := Gradient(loss, varsInUse(scope, anchor, &names)...)
			sums := make([]*Node, len(grads))
			for i, g := range grads {
				sums[i] = ReduceAllSum(Abs(g))
			}
			return []*Node{Stack(sums, 0)}
		})
		if err != nil {
			t.Fatal(err)
		}
		out, err := e.Exec(args...)
		if err != nil {
			t.Fatal(err)
		}
		sums := tensors.MustCopyFlatData[float32](out[0])
		if len(names) < 20 || len(sums) != len(names) {
			t.Fatalf("%d variables, %d gradients: want every variable of both encoders and all heads", len(names), len(sums))
		}
		for i, name := range names {
			want := false
			for _, r := range tc.reaches {
				want = want || strings.HasPrefix(name, r)
			}
			if got := sums[i] != 0; got != want {
				t.Errorf("term %d: gradient on %s is %v, want non-zero = %v", tc.term, name, sums[i], want)
			}
		}
		e.Finalize()
	}
}

// varsInUse lists the trainable variables of anchor's graph (appending
// their paths to names) as nodes.
func varsInUse(scope *model.Scope, anchor *Node, names *[]string) []*Node {
	g := anchor.Graph()
	var vs []*Node
	*names = (*names)[:0]
	for v := range scope.IterVariables() {
		if v.Trainable && v.InUseByGraph(g) {
			vs = append(vs, v.NodeValue(g))
			*names = append(*names, v.Path())
		}
	}
	return vs
}
