# Sourced by the packaging checks: a scratch home under $1 so that the app under test neither reads nor
# writes the user's settings and conversations, and Qt renders offscreen.
export HOME="$1/home" XDG_CONFIG_HOME="$1/home/config" XDG_DATA_HOME="$1/home/data" \
       XDG_CACHE_HOME="$1/home/cache" XDG_RUNTIME_DIR="$1/home/run" QT_QPA_PLATFORM=offscreen
mkdir -p "$XDG_RUNTIME_DIR" && chmod 700 "$XDG_RUNTIME_DIR"
