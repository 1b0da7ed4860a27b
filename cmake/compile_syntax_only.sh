#!/bin/sh
# The public_headers test's compiler launcher (cmake/PublicHeadersTest.cmake): runs the compile
# command with -fsyntax-only, so each generated source is parsed and type-checked (templates
# instantiated) as a compile would, without generating code, and then leaves an empty file where
# the command names its object, for the build to see the step done. The dependency file (-MD) is
# written as usual, so an edited header compiles again.
object=""
previous=""
for argument in "$@"; do
  [ "$previous" = "-o" ] && object="$argument"
  previous="$argument"
done
"$@" -fsyntax-only || exit
[ -z "$object" ] || : > "$object"
