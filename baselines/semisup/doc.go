// Package semisup holds the paper's semi-supervised baseline rows
// (InfoGraph, GraphCL, GLA, RGCL; UGNN paper Tables 2–3) on the suite's
// shared backbone (gnn.Encode with GIN-ε convolutions and TopK pooling,
// mean‖max readout, MLP head), each as its official code does it in the
// semi-supervised setting (docs/methods.md names the repositories and
// commits read, and the deviations), and the
// contrastive estimators those codes use (losses.go). Every row predicts
// with its final weights (no epoch is selected) and scores unknowns by
// 1 − max softmax (docs/protocol.md §3). The predictions carry the readout the head
// reads (gnn.Encode's mean‖max, 2·hidden wide) as Predictions.Embeddings,
// for bench plot tsne.
//
// Budget: each row's supervised part takes exactly `steps` optimizer
// steps at `batch_size` (protocol v2), so a row's gain over gin-topk is
// its semi-supervision, not more supervised steps; the unsupervised part
// has its own documented parameters. A curve point is logged after every
// pass over D^l.
//
// Batching: every training batch is cut into `size_chunks` size-sorted
// chunks (net.plan), and every view of one batch (its augmented views,
// RGCL's rationale and complement views) is laid out by the same plan, so
// the views' rows stay aligned for the contrastive losses. `layout` (edges
// by default, dense, or auto; gnn.ChooseLayout: auto is dense up to
// gnn.DenseMaxNodes = 100 nodes in the task's largest graph, the edge list
// above) lays out
// every chunk, prediction batch and ψ-scoring batch of a run: dense padded
// x [B, N, D], adj [B, N, N], mask [B, N] (gnn.NewBatch, gnn.Encode) or
// the edge list (gnn.NewEdgeBatch, gnn.EncodeEdges, gnn.EncodeNodesEdges;
// layout.go). The two compute the same function (TestLayoutsSameRun);
// auto, the legacy value, keeps Letter-* and COIL-DEL on the dense layout
// of the stored runs.
//
// Resuming: every row saves its state through Task.Resume (when due) after
// each pretraining epoch and supervised pass — the store's variables and
// optimizer state as a GoMLX checkpoint, its batch generators, pending
// batches and counters as JSON (resume.go) — and an interrupted run
// restores it and continues to the same curves and predictions as an
// uninterrupted one (TestResumeSameRun).
package semisup
