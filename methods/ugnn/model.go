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
// store of variables, all in the layout cfg.Layout (resolved: dense or
// edges).
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
// encodeEdges is the same function in the edge-list layout.
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

// edgeConv is the conv lever's convolution in the edge-list layout:
// gnn.GINConvEdges or gnn.SAGEConvEdges (unnormalised), the same variables
// as encode's.
func (n *network) edgeConv() func(scope *model.Scope, h *Node, e gnn.EdgeGraph, mask *Node, hidden int) *Node {
	if n.cfg.Conv == gnn.ConvSAGE {
		return func(scope *model.Scope, h *Node, e gnn.EdgeGraph, mask *Node, hidden int) *Node {
			return gnn.SAGEConvEdges(scope, h, e, mask, hidden, false)
		}
	}
	return gnn.GINConvEdges
}

// encodeEdges is encode in the edge-list layout, with the same variables
// (so the warm-up cache and the prototypes mean the same in both), on one
// batch of in.NumGraphs = B slots (gnn.EdgeInputs: x [Nodes, D], src, dst
// [E], edge weight [E], graph [Nodes], mask [Nodes]) → z [B, 2H]. Pooled
// nodes stay in place with mask 0 (gnn.TopKPoolEdges); the values agree
// with encode's to float rounding (gnn.EncodeEdges says where gradients
// may not: nodes that tie exactly in one layout only).
func (n *network) encodeEdges(scope *model.Scope, in gnn.EdgeInputs) *Node {
	c := n.cfg
	conv := n.edgeConv()
	e := gnn.NewEdgeGraph(in.Src, in.Dst, in.EdgeWeight, in.Graph, in.NumGraphs)
	h, mask := in.X, in.Mask
	for l := 0; l < c.Layers; l++ {
		h = conv(scope.In("conv1_%d", l), h, e, mask, c.Hidden)
	}
	s := conv(scope.In("score_gnn"), h, e, mask, c.Hidden)
	score := Reshape(gnn.Linear(scope.In("score_out"), s, 1), s.Shape().Dim(0))
	h, e, mask = gnn.TopKPoolEdges(h, e, mask, score, c.PoolRatio)
	for l := 0; l < c.Layers; l++ {
		h = conv(scope.In("conv2_%d", l), h, e, mask, c.Hidden)
	}
	return gnn.MeanMaxReadoutEdges(h, mask, e)
}

// width is the number of inputs of one batch in the run's layout
// (gnn.NumBatchInputs: 3 dense, 6 edge list).
func (n *network) width() int { return gnn.NumBatchInputs(n.cfg.Layout) }

// forward returns the class logits [B, C] and the L2-normalised embedding
// of a batch: of the readout z [B, 2H], or with the proj_head lever of the
// projection head's output [B, H] (Levers.ProjHead; ψ reads z either way).
// in are the batch's width() inputs in the run's layout (dense: x, adj,
// mask; edge list: gnn.EdgeInputs' six); numGraphs is B, which the edge
// list cannot read from its inputs' shapes (the dense layout ignores it).
func (n *network) forward(scope *model.Scope, in []*Node, numGraphs int) (logits, zn *Node) {
	enc := scope.At("encoder") // At: the semi step encodes three batches
	var z *Node
	if n.cfg.Layout == gnn.LayoutEdges {
		z = n.encodeEdges(enc, gnn.NewEdgeInputs(in, numGraphs))
	} else {
		z = n.encode(enc, in[0], in[1], in[2])
	}
	logits = gnn.MLP(scope.At("classifier"), z, n.cfg.Hidden, n.cfg.Classes)
	if n.cfg.ProjHead {
		z = gnn.MLP(scope.At("proj_head"), z, 2*n.cfg.Hidden, n.cfg.Hidden)
	}
	return logits, gnn.L2NormalizeEps(z, 1e-12)
}

// labelledLoss is L^l (eq. 4) plus the weighted supervised contrastive term
// (Khosla et al. 2020) over a labelled batch given as size chunks
// (gnn.SizeChunks), width() + 2 inputs each: the batch's, then y and w
// [B_s]. Both sum over all real graphs of all chunks, so the loss is the
// unsplit batch's.
func (n *network) labelledLoss(scope *model.Scope, in []*Node) (loss, ce *Node) {
	var logits, zs, ys, ws []*Node
	k := n.width()
	for s := 0; s+k+1 < len(in); s += k + 2 {
		y, w := in[s+k], in[s+k+1]
		l, z := n.forward(scope, in[s:s+k], w.Shape().Dim(0))
		logits, zs = append(logits, l), append(zs, z)
		ys, ws = append(ys, y), append(ws, w)
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
	// Warm-up (and the w/o-P variant): width() + 2 inputs per labelled chunk.
	n.warm, err = n.execs.Step(func(scope *model.Scope, in []*Node) []*Node {
		loss, ce := n.labelledLoss(scope, in)
		n.opt.UpdateGraph(scope, in[0].Graph(), loss)
		return []*Node{loss, ce}
	})
	if err != nil {
		return nil, err
	}
	// Predict: one batch's width() inputs, and in the edge-list layout its
	// slot weights [B], which carry B.
	n.predict, err = n.execs.Infer(func(scope *model.Scope, in []*Node) []*Node {
		logits, zn := n.forward(scope, in[:n.width()], in[len(in)-1].Shape().Dim(0))
		return []*Node{logits, zn}
	})
	if err != nil {
		return nil, err
	}
	return n, nil
}

// semi returns the prototype-aware step (eq. 15, plus the supervised
// contrastive term of labelledLoss) for batches whose labelled part comes
// in kl chunks. Inputs, with k = width() the inputs of one batch in the
// run's layout: k + 2 per labelled chunk (batch, y, w); 2k + 1 per
// unlabelled chunk (view 1 = edge deletion, view 2 = node deletion, then
// the weights [B_s]); the prototypes H [E, 2H].
// Outputs: loss, cross-entropy, L^u, and view 1's normalised embeddings of
// all unlabelled chunks concatenated [ΣB_s, 2H]; with the pseudo_label
// lever, then the pseudo-label term and its share of pseudo-labelled
// graphs (PseudoLabelLoss).
func (n *network) semi(kl int) (*model.Exec, error) {
	if e, ok := n.semis[kl]; ok {
		return e, nil
	}
	cfg := n.cfg
	k := n.width()
	e, err := n.execs.Step(func(scope *model.Scope, in []*Node) []*Node {
		g := in[0].Graph()
		lossL, ce := n.labelledLoss(scope, in[:(k+2)*kl])
		protos := in[len(in)-1]
		var z1s, z1g, z2s, l2s, ws []*Node
		for s := (k + 2) * kl; s+2*k < len(in)-1; s += 2*k + 1 {
			w := in[s+2*k]
			_, z1 := n.forward(scope, in[s:s+k], w.Shape().Dim(0))
			l2, z2 := n.forward(scope, in[s+k:s+2*k], w.Shape().Dim(0))
			z1s, z2s, l2s, ws = append(z1s, StopGradient(z1)), append(z2s, z2), append(l2s, l2), append(ws, w)
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

// flatten2D packs rows [E][D] into a tensor [E, D].
func flatten2D(rows [][]float32) *tensors.Tensor {
	d := len(rows[0])
	flat := make([]float32, 0, len(rows)*d)
	for _, r := range rows {
		flat = append(flat, r...)
	}
	return tensors.FromFlatDataAndDimensions(flat, len(rows), d)
}
