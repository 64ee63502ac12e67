package ugnn

import (
	"slices"

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
	warm    *gnn.Executable
	semis   map[int]*gnn.Executable // by number of labelled chunks
	predict *gnn.Executable
	// marginal is Sinkhorn's prototype marginal (SinkhornMarginal; nil:
	// uniform), set before the first semi step.
	marginal []float64
	// pseudoKnown is the number of known prototypes (the first of H) for
	// the pseudo_label lever; 0: no pseudo-label term.
	pseudoKnown int
}

// part is one size chunk of a batch (gnn.SizeChunks) in the run's
// layout: its width() inputs and its slot weights w [B] (1 for a real
// graph, 0 for a padding slot), which carry B in the edge-list layout; w
// may be nil in the dense layout's predict graph, which reads no weights.
type part struct {
	in []*Node
	w  *Node
}

// encode is Φ (paper §4.1): GIN (or, with the conv lever, SAGE) message passing → TopK pooling whose node
// scores S come from a separate scoring GNN (one GIN layer and a linear map
// to one score per node) → GIN → readout mean‖max. The paper says only "a
// different encoder" produces S; ours reads the first stage's node
// representations, the ones it pools (as SAGPool's scoring layer reads its
// input), not the raw features X. The kept nodes are gated
// by tanh(S) as in TopKPool/SAGPool (the paper writes V_idx ⊙ S_idx; tanh
// keeps the gate bounded). Per part: x [B,N,D], adj [B,N,N], mask [B,N]
// → z [B, 2H]. The parts are the size chunks of one batch, which only the
// batch_norm lever encodes together (forward passes one part otherwise):
// every GIN layer then normalises over the real nodes of all parts
// (gnn.GINConvBN, statistics weighted by gnn.RealNodes), so the chunks
// encode as the whole batch would. encodeEdges is the same function in
// the edge-list layout.
func (n *network) encode(scope *model.Scope, parts []part) []*Node {
	c := n.cfg
	k := len(parts)
	hs, adjs, masks := make([]*Node, k), make([]*Node, k), make([]*Node, k)
	for i, p := range parts {
		hs[i], adjs[i], masks[i] = p.in[0], p.in[1], p.in[2]
	}
	conv := n.denseConv()
	stats := func() []*Node { // BatchNorm's node weights (training graphs only)
		if !n.batchNormStats(hs[0].Graph()) {
			return nil
		}
		ws := slices.Clone(masks)
		for i, p := range parts {
			if p.w != nil {
				ws[i] = gnn.RealNodes(masks[i], p.w)
			}
		}
		return ws
	}
	ws := stats()
	for l := 0; l < c.Layers; l++ {
		hs = conv(scope.In("conv1_%d", l), hs, adjs, masks, ws)
	}
	ss := conv(scope.In("score_gnn"), hs, adjs, masks, ws)
	scoreOut := scope.In("score_out")
	for i, s := range ss {
		score := Reshape(gnn.Linear(scoreOut, s, 1), s.Shape().Dim(0), s.Shape().Dim(1))
		p := gnn.TopKPool(hs[i], adjs[i], masks[i], score, c.PoolRatio)
		hs[i], adjs[i], masks[i] = p.H, p.Adj, p.Mask
	}
	ws = stats()
	for l := 0; l < c.Layers; l++ {
		hs = conv(scope.In("conv2_%d", l), hs, adjs, masks, ws)
	}
	zs := make([]*Node, k)
	for i, h := range hs {
		zs[i] = gnn.MeanMaxReadout(h, masks[i])
	}
	return zs
}

// batchNormStats reports whether the batch_norm lever's BatchNorm
// computes batch statistics in graph g: in the training steps, not in the
// predict graph (gnn.IsInference), where it reads the running ones.
func (n *network) batchNormStats(g *Graph) bool {
	return n.cfg.BatchNorm && !gnn.IsInference(g)
}

// denseConv is the convolution of every stage of encode, on the parts of
// one batch: with the batch_norm lever gnn.GINConvBN (the parts
// normalised together; ws are the nodes' weights in the statistics, nil
// in an inference graph); otherwise the conv lever's gnn.GINConv or
// gnn.SAGEConv (unnormalised) on each part alone, ws unused.
func (n *network) denseConv() func(scope *model.Scope, hs, adjs, masks, ws []*Node) []*Node {
	hidden := n.cfg.Hidden
	if n.cfg.BatchNorm {
		return func(scope *model.Scope, hs, adjs, masks, ws []*Node) []*Node {
			return gnn.GINConvBN(scope, hs, adjs, masks, ws, hidden)
		}
	}
	conv := gnn.GINConv
	if n.cfg.Conv == gnn.ConvSAGE { // the conv lever
		conv = func(scope *model.Scope, h, adj, mask *Node, hidden int) *Node {
			return gnn.SAGEConv(scope, h, adj, mask, hidden, false)
		}
	}
	return func(scope *model.Scope, hs, adjs, masks, _ []*Node) []*Node {
		out := make([]*Node, len(hs))
		for i, h := range hs {
			out[i] = conv(scope, h, adjs[i], masks[i], hidden)
		}
		return out
	}
}

// edgeConv is denseConv in the edge-list layout: gnn.GINConvBNEdges, or
// gnn.GINConvEdges or gnn.SAGEConvEdges (unnormalised) on each part, the
// same variables as encode's.
func (n *network) edgeConv() func(scope *model.Scope, hs []*Node, es []gnn.EdgeGraph, masks, ws []*Node) []*Node {
	hidden := n.cfg.Hidden
	if n.cfg.BatchNorm {
		return func(scope *model.Scope, hs []*Node, es []gnn.EdgeGraph, masks, ws []*Node) []*Node {
			return gnn.GINConvBNEdges(scope, hs, es, masks, ws, hidden)
		}
	}
	conv := gnn.GINConvEdges
	if n.cfg.Conv == gnn.ConvSAGE {
		conv = func(scope *model.Scope, h *Node, e gnn.EdgeGraph, mask *Node, hidden int) *Node {
			return gnn.SAGEConvEdges(scope, h, e, mask, hidden, false)
		}
	}
	return func(scope *model.Scope, hs []*Node, es []gnn.EdgeGraph, masks, _ []*Node) []*Node {
		out := make([]*Node, len(hs))
		for i, h := range hs {
			out[i] = conv(scope, h, es[i], masks[i], hidden)
		}
		return out
	}
}

// encodeEdges is encode in the edge-list layout, with the same variables
// (so the warm-up cache and the prototypes mean the same in both), on the
// parts of one batch, each of B = len(w) slots (gnn.EdgeInputs: x
// [Nodes, D], src, dst [E], edge weight [E], graph [Nodes], mask [Nodes])
// → z [B, 2H] per part; with the batch_norm lever the statistics weigh
// nodes by gnn.RealNodesEdges. Pooled nodes stay in place with mask 0
// (gnn.TopKPoolEdges); the values agree with encode's to float rounding
// (gnn.EncodeEdges says where gradients may not: nodes that tie exactly in
// one layout only).
func (n *network) encodeEdges(scope *model.Scope, parts []part) []*Node {
	c := n.cfg
	k := len(parts)
	hs, masks, es := make([]*Node, k), make([]*Node, k), make([]gnn.EdgeGraph, k)
	for i, p := range parts {
		in := gnn.NewEdgeInputs(p.in, p.w.Shape().Dim(0))
		es[i] = gnn.NewEdgeGraph(in.Src, in.Dst, in.EdgeWeight, in.Graph, in.NumGraphs)
		hs[i], masks[i] = in.X, in.Mask
	}
	conv := n.edgeConv()
	stats := func() []*Node {
		if !n.batchNormStats(hs[0].Graph()) {
			return nil
		}
		ws := make([]*Node, k)
		for i, p := range parts {
			ws[i] = gnn.RealNodesEdges(masks[i], p.w, es[i])
		}
		return ws
	}
	ws := stats()
	for l := 0; l < c.Layers; l++ {
		hs = conv(scope.In("conv1_%d", l), hs, es, masks, ws)
	}
	ss := conv(scope.In("score_gnn"), hs, es, masks, ws)
	scoreOut := scope.In("score_out")
	for i, s := range ss {
		score := Reshape(gnn.Linear(scoreOut, s, 1), s.Shape().Dim(0))
		hs[i], es[i], masks[i] = gnn.TopKPoolEdges(hs[i], es[i], masks[i], score, c.PoolRatio)
	}
	ws = stats()
	for l := 0; l < c.Layers; l++ {
		hs = conv(scope.In("conv2_%d", l), hs, es, masks, ws)
	}
	zs := make([]*Node, k)
	for i, h := range hs {
		zs[i] = gnn.MeanMaxReadoutEdges(h, masks[i], es[i])
	}
	return zs
}

// width is the number of inputs of one batch in the run's layout
// (gnn.NumBatchInputs: 3 dense, 6 edge list).
func (n *network) width() int { return gnn.NumBatchInputs(n.cfg.Layout) }

// forward returns, per part of one batch, the class logits [B, C] and the
// L2-normalised embedding: of the readout z [B, 2H], or with the proj_head
// lever of the projection head's output [B, H] (Levers.ProjHead; ψ reads z
// either way). With the batch_norm lever the parts (size chunks) are
// encoded together (encode); without it each is forwarded on its own, in
// order (the graph of the runs before the lever).
func (n *network) forward(scope *model.Scope, parts ...part) (logits, zn []*Node) {
	if !n.cfg.BatchNorm && len(parts) > 1 {
		for _, p := range parts {
			l, z := n.forward(scope, p)
			logits, zn = append(logits, l...), append(zn, z...)
		}
		return logits, zn
	}
	enc := scope.At("encoder") // At: the semi step encodes three batches
	var zs []*Node
	if n.cfg.Layout == gnn.LayoutEdges {
		zs = n.encodeEdges(enc, parts)
	} else {
		zs = n.encode(enc, parts)
	}
	logits, zn = make([]*Node, len(zs)), make([]*Node, len(zs))
	for i, z := range zs {
		logits[i] = gnn.MLP(scope.At("classifier"), z, n.cfg.Hidden, n.cfg.Classes)
		if n.cfg.ProjHead {
			z = gnn.MLP(scope.At("proj_head"), z, 2*n.cfg.Hidden, n.cfg.Hidden)
		}
		zn[i] = gnn.L2NormalizeEps(z, 1e-12)
	}
	return logits, zn
}

// labelledLoss is L^l (eq. 4) plus the weighted supervised contrastive term
// (Khosla et al. 2020) over a labelled batch given as size chunks
// (gnn.SizeChunks), width() + 2 inputs each: the batch's, then y and w
// [B_s]. Both sum over all real graphs of all chunks, and the batch_norm
// lever's statistics are over all chunks' real nodes, so the loss is the
// unsplit batch's.
func (n *network) labelledLoss(scope *model.Scope, in []*Node) (loss, ce *Node) {
	var logits, zs, ys, ws []*Node
	var parts []part
	k := n.width()
	for s := 0; s+k+1 < len(in); s += k + 2 {
		y, w := in[s+k], in[s+k+1]
		parts, ys, ws = append(parts, part{in[s : s+k], w}), append(ys, y), append(ws, w)
	}
	logits, zs = n.forward(scope, parts...)
	ce = gnn.ChunkedCrossEntropy(logits, ys, ws)
	loss = ce
	if n.cfg.SupConWeight > 0 {
		sc := SupConLoss(Concatenate(zs, 0), Concatenate(ys, 0), Concatenate(ws, 0), n.cfg.SupConTau)
		loss = Add(loss, MulScalar(sc, n.cfg.SupConWeight))
	}
	return loss, ce
}

func newNetwork(backend compute.Backend, cfg Config, seed int64) (*network, error) {
	n := &network{cfg: cfg, store: model.NewStore(), semis: map[int]*gnn.Executable{}}
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
		var w *Node
		if len(in) > n.width() {
			w = in[len(in)-1]
		}
		logits, zn := n.forward(scope, part{in[:n.width()], w})
		return []*Node{logits[0], zn[0]}
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
func (n *network) semi(kl int) (*gnn.Executable, error) {
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
		if cfg.BatchNorm { // each view's chunks encoded together, view 1 first
			var v1, v2 []part
			for s := (k + 2) * kl; s+2*k < len(in)-1; s += 2*k + 1 {
				w := in[s+2*k]
				v1, v2, ws = append(v1, part{in[s : s+k], w}), append(v2, part{in[s+k : s+2*k], w}), append(ws, w)
			}
			_, z1g = n.forward(scope, v1...)
			l2s, z2s = n.forward(scope, v2...)
			for _, z1 := range z1g {
				z1s = append(z1s, StopGradient(z1))
			}
		} else { // chunk by chunk, view 1 then view 2 (the graph of the runs before the lever)
			for s := (k + 2) * kl; s+2*k < len(in)-1; s += 2*k + 1 {
				w := in[s+2*k]
				_, z1 := n.forward(scope, part{in[s : s+k], w})
				l2, z2 := n.forward(scope, part{in[s+k : s+2*k], w})
				z1s, z2s, l2s, ws = append(z1s, StopGradient(z1[0])), append(z2s, z2[0]), append(l2s, l2[0]), append(ws, w)
				z1g = append(z1g, z1[0])
			}
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
