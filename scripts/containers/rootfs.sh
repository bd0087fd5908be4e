# Sourced by the container scripts: copies host programs into a root filesystem at $root, with the shared
# libraries they load at the same paths (so an image can be `podman import`ed without a registry).

# Copies every library `ldd FILE` resolves, dereferenced, at the path ldd prints.
copy_libs() {
  ldd "$1" | awk '/=> \//{print $3} /^\t\/[^ ]+ \(/{print $1}' | while read -r lib; do
    [ -e "$root$lib" ] || cp -L --parents "$lib" "$root"
  done
}

# Exits 1 naming every command of "$@" that is not installed (prefix: the script's name for messages).
require_commands() {
  local prefix=$1 missing=()
  shift
  for c in "$@"; do command -v "$c" >/dev/null || missing+=("$c"); done
  [ ${#missing[@]} -eq 0 ] || { echo "$prefix: missing command(s): ${missing[*]}" >&2; exit 1; }
}
