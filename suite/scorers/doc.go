// Package scorers holds post-hoc unknown scorers: functions of a trained
// method's outputs (logits over the known classes, graph embeddings) that
// rate how likely each graph belongs to no known class, fitted on the
// labelled set only. They follow OpenOOD's postprocessors
// (Jingkang50/OpenOOD, openood/postprocessors/): set up once on
// in-distribution training data, then score any set of graphs.
//
// Convention: a higher unknown score means more likely unknown, so each
// score is the negative of the usual "in-distribution" confidence.
//
// Contract: Fit sees the labelled set D^l only (its outputs and labels in
// 0..numKnown−1), never the graphs it will score; Score then rates each
// row of its input on its own, so a graph's score depends on D^l and on
// that graph alone. All arithmetic is float64. Fit and Score reject
// missing, ragged, non-finite or mis-sized outputs with an error.
//
// Scorers and sources:
//
//   - msp: 1 − max softmax probability. Hendrycks & Gimpel, "A baseline
//     for detecting misclassified and out-of-distribution examples in
//     neural networks", ICLR 2017.
//   - maxlogit: −max logit. Hendrycks et al., "Scaling out-of-distribution
//     detection for real-world settings", ICML 2022; Vaze et al.,
//     "Open-set recognition: a good closed-set classifier is all you
//     need", ICLR 2022.
//   - energy: −T·logsumexp(logits/T). Liu et al., "Energy-based
//     out-of-distribution detection", NeurIPS 2020.
//   - mahalanobis: smallest Mahalanobis distance to a class mean under a
//     shared, shrunk covariance. Lee et al., "A simple unified framework
//     for detecting out-of-distribution samples and adversarial attacks",
//     NeurIPS 2018.
//   - knn: distance to the k-th nearest normalised labelled embedding. Sun
//     et al., "Out-of-distribution detection with deep nearest
//     neighbors", ICML 2022.
//
// A scorer is built from a spec, "NAME" or "NAME:p=v[,p=v]" (Parse). Adding
// one takes a file with a Model and one Register call in its init.
package scorers
