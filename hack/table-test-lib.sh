# Sourced by the table tests of hack's checks (hack/*_test.sh), which run a check on each
# case and count a wrong verdict as a failure.

failed=0
# judge <name> <want: pass|fail> <got: pass|fail> <the check's output>: prints the verdict
# and, when it is not the one wanted, the check's output; sets failed=1 then.
judge() {
  if [[ $3 == "$2" ]]; then
    echo "ok   $1 ($3)"
  else
    echo "FAIL $1: the check said $3, want $2:"
    sed 's/^/     /' "$4"
    failed=1
  fi
}
