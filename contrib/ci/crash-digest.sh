#!/bin/sh
# Prints, after a failed `make test`, the head of every crash in its log
# (a Go panic, a runtime "fatal error", a fatal signal): the line that names
# it and the 40 lines after, which hold the crashing goroutine's stack. A
# crash prints every goroutine, so the cause would otherwise scroll out of a
# CI log's tail. Usage: crash-digest.sh LOG
log=${1:?usage: crash-digest.sh LOG}
pat='^(panic: |fatal error: |SIG[A-Z]+: |unexpected fault address )'
if ! grep -qE "$pat" "$log"; then
	exit 0
fi
echo
echo "make test: the head of each crash (the whole log is $log):"
grep -n -A40 -E "$pat" "$log" | head -n 400
