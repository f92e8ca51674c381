#!/bin/sh
# fake_ssh.sh — stands in for ssh as Open MPI's launch agent in the two-host test: drops the options and the host
# name and runs the command (Open MPI's daemon, orted) on this machine, so the job's "hosts" are loopback addresses.
# Each "host" gets its own session directory: two daemons on one machine share its name, and Open MPI's default
# /tmp/ompi.NAME.UID/jf.JOB would be created by both at once (mkdir fails with "File exists" for the loser).
while [ $# -gt 0 ]; do case "$1" in -*) shift ;; *) break ;; esac; done
host=$1
shift
OMPI_MCA_orte_tmpdir_base="${TFS_FAKE_HOSTS_DIR:-${TMPDIR:-/tmp}}/host.$host"
mkdir -p "$OMPI_MCA_orte_tmpdir_base" || exit 1
export OMPI_MCA_orte_tmpdir_base
exec /bin/sh -c "$*"
