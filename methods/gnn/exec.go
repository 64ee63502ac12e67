package gnn

import (
	"fmt"
	"math"
	"strings"
	"sync"
	"time"

	"github.com/gomlx/compute"
	"github.com/gomlx/compute/shapes"
	. "github.com/gomlx/gomlx/core/graph" //nolint:staticcheck // GoMLX idiom
	"github.com/gomlx/gomlx/core/tensors"
	"github.com/gomlx/gomlx/ml/model"
)

// Execs compiles a run's executables — training steps (Step) and
// inference graphs (Infer: predictions, scores) — over one store of
// variables, and releases them together.
//
// It is the one place that works around GoMLX's constant variables:
// GoMLX (≥ v0.28.13) embeds the variables of a graph not marked as
// training as constants when the backend prefers it, which the pure-Go
// backend of compute ≥ v0.1.11 does (Capabilities.PreferConstantsForVariables),
// so an inference executable compiled before training ends would keep
// predicting with the weights of its compilation, and an optimizer in
// such a graph would update variables that its next run never reads
// (docs/speed.md). Execs marks every graph it compiles as training
// (model.Store.SetTraining) before the graph function reads a variable,
// so every run reads the current variables; an inference graph is marked
// as such besides (IsInference), and the layers that behave differently
// while training, ASAP's attention dropout and BatchNorm (batch or running
// statistics), read that mark instead. Every other layer of the repository
// computes the same function in training and inference.
type Execs struct {
	backend compute.Backend
	store   *model.Store
	list    []*Executable
}

// graphParamInference is the graph parameter that marks a graph compiled
// by Execs.Infer (IsInference).
const graphParamInference = model.ScopeSeparator + "ugbench_inference"

// NewExecs returns an Execs compiling over store's variables on backend.
func NewExecs(backend compute.Backend, store *model.Store) *Execs {
	return &Execs{backend: backend, store: store}
}

// Step returns the executable of a training step fn (inputs → outputs,
// as for model.NewExec; fn adds the optimizer's update), every input
// shape compiled on first use and kept while recently used (Executable).
// Nothing compiles before its first Exec.
func (e *Execs) Step(fn func(scope *model.Scope, in []*Node) []*Node) (*Executable, error) {
	return e.compile(fn, false)
}

// Infer returns the executable of an inference graph fn (no dropout:
// IsInference), which reads the current variables at every run; every
// input shape is compiled on first use and kept while recently used (Executable).
func (e *Execs) Infer(fn func(scope *model.Scope, in []*Node) []*Node) (*Executable, error) {
	return e.compile(fn, true)
}

func (e *Execs) compile(fn func(scope *model.Scope, in []*Node) []*Node, inference bool) (*Executable, error) {
	newExec := func() (*model.Exec, error) {
		x, err := model.NewExec(e.backend, e.store, func(scope *model.Scope, in []*Node) []*Node {
			g := in[0].Graph()
			e.store.SetTraining(g, true) // variables as parameters (see Execs)
			if inference {
				model.SetGraphParam(g, graphParamInference, true)
			}
			return fn(scope, in)
		})
		if err != nil {
			return nil, err
		}
		return x.SetMaxCache(1), nil
	}
	first, err := newExec() // report a bad function now, as before
	if err != nil {
		return nil, err
	}
	first.Finalize()
	x := &Executable{newExec: newExec, max: MaxCompiledShapes, byShape: map[string]*compiled{}}
	e.list = append(e.list, x)
	return x, nil
}

// MaxCompiledShapes is how many input-shape signatures an Executable keeps
// compiled (GoMLX's own default cap, graph.DefaultExecMaxCacheSize, at
// which GoMLX fails instead of evicting).
const MaxCompiledShapes = 32

// Executable is an executable of Execs: the graph of one function, compiled
// once per signature of input shapes (model.Exec), keeping at most
// MaxCompiledShapes of them and dropping the least recently used
// (model.Exec.Finalize). Runs whose batches take ever new shapes need the
// bound: the edge-list layout pads node and edge totals per size chunk
// (BucketTotal), so random batches keep meeting new combinations — UGNN's
// semi-supervised step on COIL-DEL compiled about 8 new signatures an
// epoch, each holding ~7 MB, and with no bound a 440-epoch run held ~24 GB
// (2026-11-27). A dropped signature that comes back is compiled again into
// the same graph (graph building is deterministic), so results do not
// depend on the bound (TestExecutableBoundedCache). Its calls are serialised.
type Executable struct {
	mu       sync.Mutex
	newExec  func() (*model.Exec, error)
	max      int
	byShape  map[string]*compiled
	tick     uint64
	compiles int
	// compileTime is the wall time spent compiling (model.Exec.Compile).
	compileTime time.Duration
}

// compiled is one signature's model.Exec and when it was last used.
type compiled struct {
	x    *model.Exec
	used uint64
}

// Exec runs the graph on args (*tensors.Tensor or Go values, as
// model.Exec.Exec takes them), compiling it for their shapes if that
// signature is not kept, and returns its outputs.
func (x *Executable) Exec(args ...any) ([]*tensors.Tensor, error) {
	key, shps, args, err := shapeSignature(args)
	if err != nil {
		return nil, err
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	c := x.byShape[key]
	if c == nil {
		if len(x.byShape) >= x.max {
			x.evictLocked()
		}
		mx, err := x.newExec()
		if err != nil {
			return nil, err
		}
		start := time.Now()
		if _, err := mx.Compile(shps...); err != nil {
			mx.Finalize()
			return nil, err
		}
		x.compileTime += time.Since(start)
		c = &compiled{x: mx}
		x.byShape[key] = c
		x.compiles++
	}
	x.tick++
	c.used = x.tick
	return c.x.Exec(args...)
}

// evictLocked finalizes and forgets the least recently used signature.
func (x *Executable) evictLocked() {
	var oldest string
	for k, c := range x.byShape {
		if oldest == "" || c.used < x.byShape[oldest].used {
			oldest = k
		}
	}
	x.byShape[oldest].x.Finalize()
	delete(x.byShape, oldest)
}

// Compiles is how many times x compiled its graph (once per new or
// returning signature); Kept how many signatures it holds now.
func (x *Executable) Compiles() (compiles, kept int) {
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.compiles, len(x.byShape)
}

// CompileTime is the wall time x has spent compiling its graph, over all
// its compilations (Compiles).
func (x *Executable) CompileTime() time.Duration {
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.compileTime
}

// Finalize releases every compiled signature.
func (x *Executable) Finalize() {
	x.mu.Lock()
	defer x.mu.Unlock()
	for k, c := range x.byShape {
		c.x.Finalize()
		delete(x.byShape, k)
	}
}

// shapeSignature is the key of args' shapes (dtype and dimensions of
// each) and the shapes themselves, with Go values converted to tensors
// (tensors.FromAnyValue, as model.Exec does) so that they are converted once.
func shapeSignature(args []any) (string, []shapes.Shape, []any, error) {
	var b strings.Builder
	shps := make([]shapes.Shape, len(args))
	out := make([]any, len(args))
	for i, a := range args {
		t, ok := a.(*tensors.Tensor)
		if !ok {
			var err error
			if t, err = tensors.FromAnyValue(a); err != nil {
				return "", nil, nil, fmt.Errorf("argument %d: %w", i, err)
			}
		}
		out[i], shps[i] = t, t.Shape()
		b.WriteString(shps[i].String())
		b.WriteByte('|')
	}
	return b.String(), shps, out, nil
}

// IsInference reports whether g was compiled by Execs.Infer: a layer with
// a training-only behaviour (dropout, BatchNorm's batch statistics) must
// check it besides GoMLX's training mark, which Execs sets on every graph.
func IsInference(g *Graph) bool {
	v, _ := model.GetGraphParam(g, graphParamInference)
	b, _ := v.(bool)
	return b
}

// Compiled is how many compilations the executables of e have made so far
// and the wall time they took (Executable.Compiles, Executable.CompileTime).
func (e *Execs) Compiled() (compiles int, took time.Duration) {
	for _, x := range e.list {
		c, _ := x.Compiles()
		compiles += c
		took += x.CompileTime()
	}
	return compiles, took
}

// Close releases every executable compiled so far (the backend is shared).
func (e *Execs) Close() {
	for _, x := range e.list {
		x.Finalize()
	}
	e.list = nil
}

// CheckedScalar reads an executable's scalar float32 output t (a loss or one of
// its terms, shape [] or [1]) as a float64 and fails on NaN or ±Inf with
// the error "<what> is <v>". The value is returned with the error too, for
// callers that only log a term.
func CheckedScalar(t *tensors.Tensor, what string) (float64, error) {
	v := float64(tensors.MustCopyFlatData[float32](t)[0])
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return v, fmt.Errorf("%s is %v", what, v)
	}
	return v, nil
}
