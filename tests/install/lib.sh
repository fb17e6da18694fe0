# Shared by the install tests (sourced): a scratch directory, $work, removed
# at exit, and BUILD/install_manifest.txt kept as it was. Installing (cpack
# too) rewrites that file, which lists the files of the user's own last
# install (docs/install.md, "Uninstall"): it is put back at exit.
# Needs BUILD set; sets work and cds there.
work=$(mktemp -d)
manifest=$BUILD/install_manifest.txt
[ -f "$manifest" ] && cp -p "$manifest" "$work/install_manifest.txt"
restore() {
  if [ -f "$work/install_manifest.txt" ]; then cp -p "$work/install_manifest.txt" "$manifest"
  else rm -f "$manifest"; fi
  rm -rf "$work"
}
trap restore EXIT
cd "$work" || exit 1
