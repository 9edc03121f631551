#!/usr/bin/env bash
# Serve a sample gamer of ggp-base (default SampleMonteCarloGamer) as a GGP player on PORT, from the
# ggp-base classes in the jar of a Sancho runner built by ../shared/sancho/setup.sh (outside the
# repository), until killed. Its logs go to a fresh temporary folder.
# usage: tests/tools/ggp_base_player.sh RUNNER_DIR PORT [GAMER]
set -eu
dir=$(cd "$1" && pwd); port=$2; gamer=${3:-SampleMonteCarloGamer}
source=$(cd "$(dirname "$0")" && pwd)/GgpBasePlayer.java
cd "$(mktemp -d)"
exec java -Xmx2g -cp "$(cat "$dir/classpath")" "$source" "$port" "$gamer"
