package main

import (
	"fmt"
	"io"
	"os"
	"sync"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"

	"github.com/ugbench/ugbench/datasets"
)

// datasetLoader is the datasets.Loader of bench's commands: it shows the
// superpixel builder's progress on w (a bar on a terminal, else a line
// every 10%) and its cache warnings.
func datasetLoader(w io.Writer) datasets.Loader {
	var mu sync.Mutex
	bars := map[string]*progressbar.ProgressBar{}
	lastTenth := map[string]int{}
	tty := false
	if f, ok := w.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		tty = true
	}
	progress := func(name string, done, total int) {
		mu.Lock()
		defer mu.Unlock()
		if !tty {
			if t := done * 10 / total; t > lastTenth[name] || done == 1 {
				lastTenth[name] = t
				fmt.Fprintf(w, "%s: building superpixel graphs, %d/%d images\n", name, done, total)
			}
			return
		}
		b := bars[name]
		if b == nil {
			b = progressbar.NewOptions(total, progressbar.OptionSetWriter(w),
				progressbar.OptionSetDescription(name+": superpixels"), progressbar.OptionShowCount(),
				progressbar.OptionSetPredictTime(true), progressbar.OptionThrottle(200_000_000))
			bars[name] = b
		}
		_ = b.Set(done)
		if done == total {
			_ = b.Finish()
			fmt.Fprintln(w)
		}
	}
	return datasets.Loader{Progress: progress, Warn: func(msg string) { fmt.Fprintln(w, "warning:", msg) }}
}
