#!/usr/bin/env bash
# Writes the working branch back into this repository:
#   patches/NNNN-*.patch   git format-patch of every commit on top of the tag
#   patches/series         the new names, comment lines kept in place
#   mlir/                  the overlay: final content of every file the series
#                          adds or changes
# then checks that the overlay equals pristine + series.
set -euo pipefail
source "$(dirname "$0")/common.sh"
expect_no_args "$0" "$@"

[[ -d ${WORK_DIR}/.git ]] || die "no working branch at ${WORK_DIR}; run scripts/worktree.sh"
[[ -z $(git -C "$WORK_DIR" status --porcelain --untracked-files=no) ]] ||
  die "${WORK_DIR} has uncommitted changes; commit them to the patch they belong to first"
n=$(git -C "$WORK_DIR" rev-list --count "${LLVM_TAG}..HEAD")
git -C "$WORK_DIR" merge-base --is-ancestor "$LLVM_TAG" HEAD ||
  die "the working branch is not based on ${LLVM_TAG}"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
git -C "$WORK_DIR" format-patch -q --zero-commit --no-signature --filename-max-length=100 \
  -o "$tmp/patches" "${LLVM_TAG}..HEAD"
mkdir -p "$tmp/patches"

# New series file: existing comment lines stay where they were, patch names
# are replaced in order; extra patches are appended.
mapfile -t names < <(cd "$tmp/patches" && ls -1 | sort)
i=0
{
  if [[ -f ${REPO_ROOT}/patches/series ]]; then
    while IFS= read -r line; do
      if [[ -z ${line//[[:space:]]/} || $line == \#* ]]; then
        echo "$line"
      elif ((i < ${#names[@]})); then
        echo "${names[i]}"
        i=$((i + 1))
      fi
    done <"${REPO_ROOT}/patches/series"
  fi
  while ((i < ${#names[@]})); do
    echo "${names[i]}"
    i=$((i + 1))
  done
} >"$tmp/series"

rm -f "${REPO_ROOT}"/patches/*.patch
((${#names[@]} == 0)) || cp "$tmp"/patches/*.patch "${REPO_ROOT}/patches/"
cp "$tmp/series" "${REPO_ROOT}/patches/series"

# Overlay.
rm -rf "${REPO_ROOT}/mlir"
while IFS=$'\t' read -r status path; do
  [[ $path == mlir/* ]] || die "the series touches $path, outside mlir/; the overlay cannot hold it"
  [[ $status != D ]] || die "the series deletes $path; the overlay cannot express a deletion"
  mkdir -p "${REPO_ROOT}/$(dirname "$path")"
  git -C "$WORK_DIR" show "HEAD:$path" >"${REPO_ROOT}/$path"
done < <(git -C "$WORK_DIR" diff --name-status --no-renames "$LLVM_TAG" HEAD)
note "exported ${n} patch(es) to patches/ and refreshed mlir/"
"${REPO_ROOT}/scripts/check.sh" --overlay-only
