#!/bin/sh
# fake_ssh.sh — stands in for ssh as Open MPI's launch agent in the two-host test: drops the options and the host
# name and runs the command (Open MPI's daemon, orted) on this machine, so the job's "hosts" are loopback addresses.
while [ $# -gt 0 ]; do case "$1" in -*) shift ;; *) break ;; esac; done
shift
exec /bin/sh -c "$*"
