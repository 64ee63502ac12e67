// Package slurm writes the Slurm batch script that runs a ugbench grid as a
// job array: one array task per shard of the grid (`bench grid --shard
// env/N`), each on a database on its node's local disk (SQLite must not be
// shared over a network file system), copied to a shared directory when the
// task ends, and a dependent job that merges the shard databases into one
// (`bench merge`). It uses Slurm as it is: sbatch, job arrays,
// dependencies.
package slurm

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strings"
	"text/template"
)

// Config describes the job array. Paths are as the compute nodes see them.
type Config struct {
	// Shards is the number of array tasks, one per grid shard (≥ 1).
	Shards int
	// Bench is the absolute path of the bench binary.
	Bench string
	// Dir is an absolute directory on a file system every node shares: the
	// shard databases go to Dir/shards, the job logs to Dir/logs.
	Dir string
	// DB is the absolute path of the merged database.
	DB string
	// GridArgs are the flags of `bench grid` for the whole grid, without
	// --db and --shard (the script sets them).
	GridArgs []string
	// JobName names the array job; the merge job is JobName-merge.
	JobName string
	// Partition, Account, Time, Mem and Gres, when not empty, become the
	// array tasks' #SBATCH --partition, --account, --time, --mem and
	// --gres (e.g. "gpu:1"); Partition and Account apply to the merge job
	// too.
	Partition, Account, Time, Mem, Gres string
	// MergeTime is the merge job's --time ("" = the partition's default).
	MergeTime string
	// CPUsPerTask is each array task's --cpus-per-task (≥ 1).
	CPUsPerTask int
	// LocalDir is the node-local directory of the shard databases while
	// they run; "" means $TMPDIR, else /tmp, at run time.
	LocalDir string
	// Sbatch are more options for the array tasks, each one "--name=value"
	// or "--flag", written as #SBATCH lines.
	Sbatch []string
}

// Quote returns s as one bash word: unchanged if it is made of safe
// characters only, else in single quotes (a quote inside as '\”).
func Quote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./:=,+@%") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// check validates c; errors name the field as a `bench slurm` flag.
func (c Config) check() error {
	if c.Shards < 1 {
		return fmt.Errorf("--shards %d: want at least 1", c.Shards)
	}
	if c.CPUsPerTask < 1 {
		return fmt.Errorf("--cpus-per-task %d: want at least 1", c.CPUsPerTask)
	}
	for _, p := range []struct{ flag, path string }{{"--bench", c.Bench}, {"--dir", c.Dir}, {"--db", c.DB}} {
		if !filepath.IsAbs(p.path) {
			return fmt.Errorf("%s %q: want an absolute path (the nodes run the script from elsewhere)", p.flag, p.path)
		}
	}
	if c.LocalDir != "" && !filepath.IsAbs(c.LocalDir) {
		return fmt.Errorf("--local-dir %q: want an absolute path", c.LocalDir)
	}
	fields := []struct{ flag, v string }{{"--job-name", c.JobName}, {"--partition", c.Partition}, {"--account", c.Account},
		{"--time", c.Time}, {"--mem", c.Mem}, {"--gres", c.Gres}, {"--merge-time", c.MergeTime}, {"--dir", c.Dir}}
	for _, o := range c.Sbatch {
		if !strings.HasPrefix(o, "--") {
			return fmt.Errorf("--sbatch %q: want a long sbatch option, e.g. --qos=long", o)
		}
		fields = append(fields, struct{ flag, v string }{"--sbatch", o})
	}
	for _, f := range fields {
		if strings.ContainsAny(f.v, " \t\n\r") {
			return fmt.Errorf("%s %q: no white space allowed (it goes into an #SBATCH line)", f.flag, f.v)
		}
	}
	if c.JobName == "" {
		return fmt.Errorf("--job-name: empty")
	}
	for _, a := range c.GridArgs {
		name, _, _ := strings.Cut(a, "=")
		if name == "--db" || name == "--shard" {
			return fmt.Errorf("grid flag %s: the script sets it (each shard writes its own database)", name)
		}
	}
	return nil
}

// Script returns the batch script for c. Submitted with `bash FILE`, it
// submits itself as the job array and a merge job that starts when every
// array task has ended (afterany: a failed run does not keep the others
// out of the merge; the merge job fails if a shard database is missing).
// `sbatch FILE` submits the array alone. A requeued or resubmitted task
// resumes from its shard database in Dir/shards, and the merge is
// idempotent, so rerunning the whole script only computes what is missing.
func Script(c Config) (string, error) {
	if err := c.check(); err != nil {
		return "", err
	}
	var b bytes.Buffer
	if err := scriptTmpl.Execute(&b, c); err != nil {
		return "", err
	}
	return b.String(), nil
}

var scriptTmpl = template.Must(template.New("script").Funcs(template.FuncMap{
	"q":    Quote,
	"last": func(n int) int { return n - 1 },
	"join": func(args []string) string {
		q := make([]string, len(args))
		for i, a := range args {
			q[i] = Quote(a)
		}
		return strings.Join(q, " ")
	},
}).Parse(`#!/bin/bash
# A ugbench grid as a Slurm job array of {{.Shards}} shards, written by ` + "`bench slurm`" + `.
#
#   bash THIS_FILE     submit the array and a merge job that runs after it
#   sbatch THIS_FILE   submit the array alone (merge later: bash THIS_FILE merge)
#
# Each array task runs one shard of the grid (bench grid --shard env/{{.Shards}})
# on a database on its node's local disk and copies it to {{.Dir}}/shards
# when it ends, with the saved states of its unfinished runs (so that a
# requeued or resubmitted task continues them). The merge job combines the
# databases into {{.DB}}.
#SBATCH --job-name={{.JobName}}
#SBATCH --array=0-{{last .Shards}}
#SBATCH --cpus-per-task={{.CPUsPerTask}}
{{- if .Partition}}
#SBATCH --partition={{.Partition}}{{end}}
{{- if .Account}}
#SBATCH --account={{.Account}}{{end}}
{{- if .Time}}
#SBATCH --time={{.Time}}{{end}}
{{- if .Mem}}
#SBATCH --mem={{.Mem}}{{end}}
{{- if .Gres}}
#SBATCH --gres={{.Gres}}{{end}}
#SBATCH --output={{.Dir}}/logs/%A_%a.out
{{- range .Sbatch}}
#SBATCH {{.}}{{end}}
set -euo pipefail

BENCH={{q .Bench}}
DIR={{q .Dir}}
DB={{q .DB}}
SHARDS={{.Shards}}
GRID=({{join .GridArgs}})

merge() {
	shopt -s nullglob
	local files=("$DIR"/shards/shard-*-of-$SHARDS.db)
	if [ ${#files[@]} -gt 0 ]; then
		"$BENCH" merge "$DB" "${files[@]}"
	fi
	if [ ${#files[@]} -ne $SHARDS ]; then
		echo "ugbench: only ${#files[@]} of $SHARDS shard databases in $DIR/shards (see $DIR/logs); merged those" >&2
		exit 1
	fi
	echo "ugbench: merged $SHARDS shards into $DB"
}

if [ "${1:-}" = merge ]; then
	merge
	exit
fi

if [ -z "${SLURM_ARRAY_TASK_ID:-}" ]; then
	# Not in a job: submit the array and the merge job.
	mkdir -p "$DIR/shards" "$DIR/logs"
	self=$(readlink -f "$0")
	array=$(sbatch --parsable "$self")
	array=${array%%;*}
	merge_job=$(sbatch --parsable --job-name={{q .JobName}}-merge --dependency=afterany:"$array" \
		--cpus-per-task=1 --output="$DIR/logs/%j-merge.out"{{if .Partition}} --partition={{q .Partition}}{{end}}{{if .Account}} --account={{q .Account}}{{end}}{{if .MergeTime}} --time={{q .MergeTime}}{{end}} \
		--wrap="bash $(printf %q "$self") merge")
	merge_job=${merge_job%%;*}
	echo "submitted job array $array ($SHARDS shards) and merge job $merge_job; then: $BENCH report accuracy --db $DB"
	exit
fi

# An array task: one shard.
i=$SLURM_ARRAY_TASK_ID
local_dir={{if .LocalDir}}{{q .LocalDir}}{{else}}"${TMPDIR:-/tmp}"{{end}}/ugbench-${SLURM_ARRAY_JOB_ID:-$SLURM_JOB_ID}-$i
shard_db="$DIR/shards/shard-$i-of-$SHARDS.db"
# The saved states of running runs (bench grid --resume-every), kept in the
# default cache beside the local database while the task runs.
shard_resume="$DIR/shards/resume-$i-of-$SHARDS"
local_resume="$local_dir/ugbench-cache/resume"
mkdir -p "$local_dir" "$DIR/shards"
trap 'rm -rf "$local_dir"' EXIT
# Slurm's SIGTERM (time limit, scancel) reaches bench, which records its
# runs as interrupted and exits; the trap lets the shard be saved after.
trap 'echo "ugbench: shard $i: SIGTERM"' TERM
if [ -f "$shard_db" ]; then
	cp "$shard_db" "$local_dir/runs.db" # resume a requeued or resubmitted task
fi
if [ -d "$shard_resume" ]; then
	mkdir -p "$(dirname "$local_resume")"
	cp -r "$shard_resume" "$local_resume" # and continue its unfinished runs
fi
status=0
"$BENCH" grid "${GRID[@]}" --shard env/$SHARDS --db "$local_dir/runs.db" --quiet || status=$?
# A bench that closed the database checkpointed its WAL into the file. One
# killed before (Slurm's SIGKILL after KillWait, a second signal) left the
# runs it committed since in runs.db-wal: opening and closing the store
# checkpoints them, so that copying the file alone loses none.
if [ -s "$local_dir/runs.db-wal" ]; then
	"$BENCH" runs --db "$local_dir/runs.db" > /dev/null || echo "ugbench: shard $i: could not checkpoint $local_dir/runs.db-wal" >&2
fi
# Copy the database, then rename, so a reader never sees half a file.
cp "$local_dir/runs.db" "$shard_db.part-$SLURM_JOB_ID"
mv -f "$shard_db.part-$SLURM_JOB_ID" "$shard_db"
# The states of runs still unfinished (bench deletes a run's state when it
# finishes), in place of the previous ones.
rm -rf "$shard_resume.part-$SLURM_JOB_ID"
if [ -n "$(ls -A "$local_resume" 2>/dev/null)" ]; then
	cp -r "$local_resume" "$shard_resume.part-$SLURM_JOB_ID"
	rm -rf "$shard_resume"
	mv "$shard_resume.part-$SLURM_JOB_ID" "$shard_resume"
else
	rm -rf "$shard_resume"
fi
exit $status
`))
