#!/bin/sh
# An approval hook for golemfs (approval.hook in golem.yaml).
# golemfs runs it for each write or delete that a zone's approval marks
# 'ask', when no `golemfs approve` session is connected. Exit 0 approves,
# anything else refuses; the first line printed is kept as the reason
# (the program sees it in the audit log and, under golemfs run, on stderr).
#
# Environment: GOLEMFS_OP (write|delete), GOLEMFS_PATH (virtual path),
# GOLEMFS_ZONE, GOLEMFS_PID, GOLEMFS_COMM, GOLEMFS_BYTES, GOLEMFS_SESSION.

case "$GOLEMFS_OP:$GOLEMFS_PATH" in
write:*.md | write:*.txt)
	echo "text files may be written"
	exit 0
	;;
delete:*)
	echo "deletes need a person: run 'golemfs approve'"
	exit 1
	;;
*)
	echo "only .md and .txt files may be written here"
	exit 1
	;;
esac
