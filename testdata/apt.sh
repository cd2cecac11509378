# apt.sh defines apt_install, sourced by the setup scripts: it installs
# Debian packages and waits for another apt or dpkg (an unattended
# upgrade, a second setup script) to let go of the package locks instead
# of failing at once, for up to 15 minutes.
#
#   . testdata/apt.sh && apt_install chromium zsh
apt_install() {
	tries=0
	until apt-get -o DPkg::Lock::Timeout=900 update -qq; do
		tries=$((tries + 1))
		[ "$tries" -lt 90 ] || return 1
		echo "apt.sh: apt-get update failed (another apt holds its lock?): again in 10s" >&2
		sleep 10
	done
	DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=900 install -y -qq "$@" >/dev/null
}
