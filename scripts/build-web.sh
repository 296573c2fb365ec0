#!/usr/bin/env bash
# Builds the static page into www/: Rust → wasm32 → wasm-bindgen (version pinned in
# Cargo.lock) → wasm-opt (npm binaryen). Installs what it needs first (scripts/setup.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"

log() { printf '[build-web] %s\n' "$*" >&2; }

bash scripts/setup.sh

# Dependencies' source paths (in panic locations) are named from the registry, not from
# this machine's cargo home: the modules do not carry the builder's directories (and the
# app shell is 34 B gzip smaller).
REMAP=""
for src in "${CARGO_HOME:-$HOME/.cargo}"/registry/src/*/; do
  [ -d "$src" ] && REMAP="$REMAP${REMAP:+,}'--remap-path-prefix=${src%/}=crates.io'"
done

# Compile, bind, optimise: one function for the three modules.
# The wasm-release profile optimises for size (the native CLI's release profile for speed);
# the modules are built at opt-level "z" (about 40 KB gzip smaller than "s" for the page,
# which keeps the app shell inside its budget; scoring speed in the page is measured by the
# end-to-end upload test). The wasm-opt features are exactly those rustc enables by default
# for wasm32-unknown-unknown (the module's target_features section; see
# `wasm-opt --detect-features --print-features`).
# LEVEL=3 builds a module for speed instead (opt-level 3, wasm-opt -O3).
build_module() {
  local crate=$1 out_dir=$2 out_name=$3 level=${LEVEL:-z}
  shift 3
  log "cargo build $crate (wasm32, wasm-release, opt-level $level)"
  local feats=()
  if [ "$crate" = wildtool-web ] && [ -n "${WEB_FEATURES:-}" ]; then feats=(--features "$WEB_FEATURES"); fi
  cargo build -p "$crate" --target wasm32-unknown-unknown --profile wasm-release \
    --config "profile.wasm-release.opt-level=$([ "$level" = z ] && echo '"z"' || echo "$level")" \
    --config "target.wasm32-unknown-unknown.rustflags=[$REMAP]" "${feats[@]}"
  local input="target/wasm32-unknown-unknown/wasm-release/${crate//-/_}.wasm"
  # Binding and optimising take a minute: they are skipped when this exact module was
  # already bound and optimised with the same tools and flags (the stamp names all three).
  local stamp
  stamp="$(sha256sum "$input" | cut -d' ' -f1) $(wasm-bindgen --version) $(node_modules/.bin/wasm-opt --version) -O$level $* glue-comments-dropped"
  if [ -f "$out_dir/.stamp" ] && [ "$(cat "$out_dir/.stamp")" = "$stamp" ] \
     && [ -f "$out_dir/${out_name}_bg.wasm" ] && [ -f "$out_dir/${out_name}.js" ]; then
    log "$crate unchanged since the last build: kept $out_dir"
    return
  fi
  rm -rf "$out_dir/${out_name}_bg.wasm" "$out_dir/${out_name}.js" "$out_dir/.stamp"
  wasm-bindgen --target web --no-typescript --out-dir "$out_dir" --out-name "$out_name" "$input"
  # The generated glue's comments (the exports' rustdoc as JSDoc blocks, and wasm-bindgen's
  # own notes, each on lines of their own; the glue has no multi-line string) are dropped:
  # nothing reads them at run time.
  node -e 'const fs = require("fs"); const f = process.argv[1];
    fs.writeFileSync(f, fs.readFileSync(f, "utf8").replace(/^[ \t]*(\/\*\*[\s\S]*?\*\/|\/\/[^\n]*)\n/gm, ""));' \
    "$out_dir/${out_name}.js"
  node_modules/.bin/wasm-opt "-O$level" "$@" \
    --enable-bulk-memory --enable-nontrapping-float-to-int --enable-sign-ext \
    --enable-mutable-globals --enable-reference-types --enable-multivalue \
    --enable-bulk-memory-opt --enable-call-indirect-overlong \
    "$out_dir/${out_name}_bg.wasm" -o "$out_dir/${out_name}_bg.wasm"
  printf '%s' "$stamp" > "$out_dir/.stamp"
}

# The app shell, optimised until a pass no longer shrinks it (--converge: about 1.7 KB gzip
# smaller than one -Oz, a minute more of build time). --gufa (whole-program type flow:
# about 0.6 KB) and --low-memory-unused (about 2.7 KB: constant address offsets folded
# into loads and stores; Rust's wasm32 module never uses the first 1 KB of memory — the
# stack is placed first and grows down from 1 MB, data lies above it). --flatten
# --rereloop -Oz (about 2.5 KB: the control flow rebuilt by binaryen's relooper and
# optimised again; semantics-preserving, the end-to-end suite runs on the result).
# WEB_FEATURES=… builds the app shell with extra features of wildtool-web (none today).
# The producers and target-features sections are dropped (about 0.25 KB gzip): nothing
# reads them at run time, and the features are fixed by the flags above.
build_module wildtool-web www/pkg wildtool --converge --gufa --low-memory-unused --flatten --rereloop -Oz --strip-producers --strip-target-features
# jieba, as a separate module loaded with the dictionary only when Chinese text must be
# segmented (keeps jieba's HMM tables out of the app shell).
build_module wildtool-jieba www/pkg/jieba wildtool_jieba
# The lab module (comparisons, trials, leaderboard table, generator, sweeps, trace steps),
# loaded the first time the page needs one of its calls (not part of the app shell).
build_module wildtool-lab www/pkg/lab wildtool_lab
# The upload scorer (the core's scorer for a result file uploaded to the page), loaded by
# the page's worker on the first upload: built for speed, since its size is paid only
# then (docs/speed.md, "The page's worker").
LEVEL=3 build_module wildtool-scorer www/pkg/scorer wildtool_scorer

# Reference data the page loads at run time (not part of the app shell; gitignored copies):
# the bundled suite, the published leaderboard and jieba's dictionary (fetched only when a
# Chinese string must be segmented).
mkdir -p www/data
cp data/suite.jsonl www/data/suite.jsonl
cp data/paper-leaderboard.json www/data/paper-leaderboard.json
cp data/official-datasets.json www/data/official-datasets.json
# The generator's domain packs, fetched the first time the page generates a suite: one
# bundle, a JSON array of {name, text} in file-name order (the lab module's `packs`), and
# the files themselves.
mkdir -p www/data/packs
cp data/packs/*.json www/data/packs/
node -e '
const fs = require("fs");
const names = fs.readdirSync("data/packs").filter((n) => n.endsWith(".json")).sort();
const packs = names.map((name) => ({ name, text: fs.readFileSync(`data/packs/${name}`, "utf8") }));
fs.writeFileSync("www/data/packs.json", JSON.stringify(packs));
'
DICT="$(ls -d "${CARGO_HOME:-$HOME/.cargo}"/registry/src/*/jieba-rs-"$(awk '/^name = "jieba-rs"$/ { getline; gsub(/version = |"/, ""); print; exit }' Cargo.lock)"/src/data/dict.txt 2>/dev/null | head -n 1)"
if [ -z "$DICT" ]; then
  cargo fetch --target wasm32-unknown-unknown >/dev/null
  DICT="$(ls -d "${CARGO_HOME:-$HOME/.cargo}"/registry/src/*/jieba-rs-*/src/data/dict.txt | head -n 1)"
fi
cp "$DICT" www/data/jieba-dict.txt
log "built www/ ($(wc -c < www/pkg/wildtool_bg.wasm) bytes of wasm; lab module $(wc -c < www/pkg/lab/wildtool_lab_bg.wasm) bytes)"
