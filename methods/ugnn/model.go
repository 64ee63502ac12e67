package ugnn

import (
	"github.com/gomlx/compute"
	. "github.com/gomlx/gomlx/core/graph" //nolint:staticcheck // GoMLX idiom
	"github.com/gomlx/gomlx/core/tensors"
	"github.com/gomlx/gomlx/ml/model"
	"github.com/gomlx/gomlx/ml/train/optimizer"

	"github.com/ugbench/ugbench/methods/gnn"
)

// network is UGNN's encoder Φ with its TopK scoring GNN, the classifier ψ,
// and the three compiled steps (warm-up, semi-supervised, predict) over one
// store of variables.
type network struct {
	cfg     Config
	store   *model.Store
	opt     optimizer.Interface
	execs   *gnn.Execs
	warm    *model.Exec
	semis   map[int]*model.Exec // by number of labelled chunks
	predict *model.Exec
	// marginal is Sinkhorn's prototype marginal (SinkhornMarginal; nil:
	// uniform), set before the first semi step.
	marginal []float64
	// pseudoKnown is the number of known prototypes (the first of H) for
	// the pseudo_label lever; 0: no pseudo-label term.
	pseudoKnown int
}

// encode is Φ (paper §4.1): GIN (or, with the conv lever, SAGE) message passing → TopK pooling whose node
// scores S come from a separate scoring GNN (one GIN layer and a linear map
// to one score per node) → GIN → readout mean‖max. The paper says only "a
// different encoder" produces S; ours reads the first stage's node
// representations, the ones it pools (as SAGPool's scoring layer reads its
// input), not the raw features X. The kept nodes are gated
// by tanh(S) as in TopKPool/SAGPool (the paper writes V_idx ⊙ S_idx; tanh
// keeps the gate bounded). x [B,N,D], adj [B,N,N], mask [B,N] → z [B, 2H].
func (n *network) encode(scope *model.Scope, x, adj, mask *Node) *Node {
	c := n.cfg
	conv := gnn.GINConv
	if c.Conv == gnn.ConvSAGE { // the conv lever
		conv = func(scope *model.Scope, h, adj, mask *Node, hidden int) *Node {
			return gnn.SAGEConv(scope, h, adj, mask, hidden, false)
		}
	}
	h := x
	for l := 0; l < c.Layers; l++ {
		h = conv(scope.In("conv1_%d", l), h, adj, mask, c.Hidden)
	}
	s := conv(scope.In("score_gnn"), h, adj, mask, c.Hidden)
	score := Reshape(gnn.Linear(scope.In("score_out"), s, 1), s.Shape().Dim(0), s.Shape().Dim(1))
	p := gnn.TopKPool(h, adj, mask, score, c.PoolRatio)
	h = p.H
	for l := 0; l < c.Layers; l++ {
		h = conv(scope.In("conv2_%d", l), h, p.Adj, p.Mask, c.Hidden)
	}
	return gnn.MeanMaxReadout(h, p.Mask)
}

// forward returns the class logits [B, C] and the L2-normalised embedding
// of a batch: of the readout z [B, 2H], or with the proj_head lever of the
// projection head's output [B, H] (Levers.ProjHead; ψ reads z either way).
func (n *network) forward(scope *model.Scope, x, adj, mask *Node) (logits, zn *Node) {
	z := n.encode(scope.At("encoder"), x, adj, mask) // At: the semi step encodes three batches
	logits = gnn.MLP(scope.At("classifier"), z, n.cfg.Hidden, n.cfg.Classes)
	if n.cfg.ProjHead {
		z = gnn.MLP(scope.At("proj_head"), z, 2*n.cfg.Hidden, n.cfg.Hidden)
	}
	return logits, gnn.L2NormalizeEps(z, 1e-12)
}

// labelledLoss is L^l (eq. 4) plus the weighted supervised contrastive term
// (Khosla et al. 2020) over a labelled batch given as size chunks (5 inputs
// each: x, adj, mask, y, w; gnn.SizeChunks): both sum over all real graphs
// of all chunks, so the loss is the unsplit batch's.
func (n *network) labelledLoss(scope *model.Scope, in []*Node) (loss, ce *Node) {
	var logits, zs, ys, ws []*Node
	for s := 0; s+4 < len(in); s += 5 {
		l, z := n.forward(scope, in[s], in[s+1], in[s+2])
		logits, zs = append(logits, l), append(zs, z)
		ys, ws = append(ys, in[s+3]), append(ws, in[s+4])
	}
	ce = gnn.ChunkedCrossEntropy(logits, ys, ws)
	loss = ce
	if n.cfg.SupConWeight > 0 {
		sc := SupConLoss(Concatenate(zs, 0), Concatenate(ys, 0), Concatenate(ws, 0), n.cfg.SupConTau)
		loss = Add(loss, MulScalar(sc, n.cfg.SupConWeight))
	}
	return loss, ce
}

func newNetwork(backend compute.Backend, cfg Config, seed int64) (*network, error) {
	n := &network{cfg: cfg, store: model.NewStore(), semis: map[int]*model.Exec{}}
	n.execs = gnn.NewExecs(backend, n.store)
	if err := gnn.SetSeed(n.store, seed); err != nil {
		return nil, err
	}
	n.opt = optimizer.Adam().LearningRate(cfg.LR).Done()
	var err error
	// Warm-up (and the w/o-P variant): 5 inputs per labelled chunk.
	n.warm, err = n.execs.Step(func(scope *model.Scope, in []*Node) []*Node {
		loss, ce := n.labelledLoss(scope, in)
		n.opt.UpdateGraph(scope, in[0].Graph(), loss)
		return []*Node{loss, ce}
	})
	if err != nil {
		return nil, err
	}
	n.predict, err = n.execs.Infer(func(scope *model.Scope, in []*Node) []*Node {
		logits, zn := n.forward(scope, in[0], in[1], in[2])
		return []*Node{logits, zn}
	})
	if err != nil {
		return nil, err
	}
	return n, nil
}

// semi returns the prototype-aware step (eq. 15, plus the supervised
// contrastive term of labelledLoss) for batches whose labelled part comes
// in kl chunks. Inputs: 5 per labelled chunk (x, adj, mask, y,
// w); 7 per unlabelled chunk (view 1 = edge deletion: x, adj, mask; view 2
// = node deletion: x, adj, mask; weights [B_s]); the prototypes H [E, 2H].
// Outputs: loss, cross-entropy, L^u, and view 1's normalised embeddings of
// all unlabelled chunks concatenated [ΣB_s, 2H]; with the pseudo_label
// lever, then the pseudo-label term and its share of pseudo-labelled
// graphs (PseudoLabelLoss).
func (n *network) semi(kl int) (*model.Exec, error) {
	if e, ok := n.semis[kl]; ok {
		return e, nil
	}
	cfg := n.cfg
	e, err := n.execs.Step(func(scope *model.Scope, in []*Node) []*Node {
		g := in[0].Graph()
		lossL, ce := n.labelledLoss(scope, in[:5*kl])
		protos := in[len(in)-1]
		var z1s, z1g, z2s, l2s, ws []*Node
		for s := 5 * kl; s+6 < len(in)-1; s += 7 {
			_, z1 := n.forward(scope, in[s], in[s+1], in[s+2])
			l2, z2 := n.forward(scope, in[s+3], in[s+4], in[s+5])
			z1s, z2s, l2s, ws = append(z1s, StopGradient(z1)), append(z2s, z2), append(l2s, l2), append(ws, in[s+6])
			z1g = append(z1g, z1)
		}
		z1, z2, wu := Concatenate(z1s, 0), Concatenate(z2s, 0), Concatenate(ws, 0)
		q := SinkhornMarginal(MulScalar(Einsum("bd,ed->be", z1, protos), 2), wu, n.marginal, cfg.SinkhornEps, cfg.SinkhornIters)
		p := DivScalar(Einsum("bd,ed->be", z2, protos), cfg.Tau)
		lossU := SoftCrossEntropy(q, p, wu)
		if cfg.Swap { // the swap lever: view 2's code is view 1's target too
			q2 := SinkhornMarginal(MulScalar(Einsum("bd,ed->be", z2, protos), 2), wu, n.marginal, cfg.SinkhornEps, cfg.SinkhornIters)
			p1 := DivScalar(Einsum("bd,ed->be", Concatenate(z1g, 0), protos), cfg.Tau)
			lossU = MulScalar(Add(lossU, SoftCrossEntropy(q2, p1, wu)), 0.5)
		}
		loss := Add(lossL, lossU)
		var extra []*Node
		if cfg.PseudoLabel > 0 && n.pseudoKnown > 0 {
			pl, frac := PseudoLabelLoss(q, Concatenate(l2s, 0), wu, n.pseudoKnown, cfg.PseudoLabel)
			loss = Add(loss, MulScalar(pl, cfg.PseudoWeight))
			extra = []*Node{pl, frac}
		}
		n.opt.UpdateGraph(scope, g, loss)
		return append([]*Node{loss, ce, lossU, z1}, extra...)
	})
	if err != nil {
		return nil, err
	}
	n.semis[kl] = e
	return e, nil
}

func (n *network) close() { n.execs.Close() }

// batchTensors returns x, adj, mask, then y and weight as tensors.
func batchTensors(b *gnn.Batch, y []int32) []any {
	x, a, m := b.Tensors()
	out := []any{x, a, m}
	if y != nil {
		out = append(out, tensors.FromFlatDataAndDimensions(y, b.B), tensors.FromFlatDataAndDimensions(b.Weight, b.B))
	}
	return out
}

// flatten2D packs rows [E][D] into a tensor [E, D].
func flatten2D(rows [][]float32) *tensors.Tensor {
	d := len(rows[0])
	flat := make([]float32, 0, len(rows)*d)
	for _, r := range rows {
		flat = append(flat, r...)
	}
	return tensors.FromFlatDataAndDimensions(flat, len(rows), d)
}
