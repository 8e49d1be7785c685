#!/usr/bin/env bash
# Builds target/native/libdisni.so when the rdma-core headers and gcc are present, and writes
# target/native/native.bnd, which bnd.bnd includes: with the library, the Bundle-NativeCode
# header and the resource; without it, a header saying what was skipped and why. Never fails
# the build for a missing prerequisite; a compile error does fail it.
# Usage: build-native.sh SOURCE_DIR OUTPUT_DIR CLASSES_DIR JAVA_HOME [SKIP_TESTS]
# DISNI_INCLUDE_DIR (default /usr/include) is where the rdma-core headers are looked for.
set -euo pipefail
src=$1 out=$2 classes=$3 java_home=$4 skip_tests=${5:-false}
mkdir -p "$out"
missing=()
include_dir=${DISNI_INCLUDE_DIR:-/usr/include}
for h in "$include_dir/infiniband/verbs.h" "$include_dir/rdma/rdma_cma.h"; do
  [ -f "$h" ] || missing+=("$h")
done
command -v gcc >/dev/null 2>&1 || missing+=("gcc")
command -v make >/dev/null 2>&1 || missing+=("make")
[ -f "$java_home/include/jni.h" ] || missing+=("$java_home/include/jni.h")
if [ ${#missing[@]} -gt 0 ]; then
  reason="missing ${missing[*]} (install: apt-get install libibverbs-dev librdmacm-dev gcc make)"
  echo "[disni-native] SKIPPED building libdisni.so: $reason" >&2
  echo "[disni-native] the fragment bundle is built WITHOUT a native library; DiSNI cannot load on this build" >&2
  rm -f "$out/libdisni.so" "$classes/META-INF/native/libdisni.so"
  printf 'X-RpcRdma4j-Native-Skipped: %s\n' "$reason" > "$out/native.bnd"
  exit 0
fi
make -s -C "$src" OUT="$out" JAVA_HOME="$java_home" CPPFLAGS="-I$include_dir"
# the record translation, checked in C (src/test/c) before Java ever posts through it
if [ "$skip_tests" != "true" ]; then
  make -s -C "$src" OUT="$out" JAVA_HOME="$java_home" CPPFLAGS="-I$include_dir" check >&2
fi
echo "[disni-native] built $out/libdisni.so" >&2
cat > "$out/native.bnd" <<BND
Bundle-NativeCode: META-INF/native/libdisni.so;osname=Linux;processor=x86-64
-includeresource.native: META-INF/native/libdisni.so=$out/libdisni.so
BND
