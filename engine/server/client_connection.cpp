#include "client_connection.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace trit::server {
namespace {

// An address and port as a socket reports it, in the form cpp-httplib writes into Request (its
// getnameinfo(NI_NUMERICHOST) text: "127.0.0.1", "::1", "::ffff:10.0.0.2").
struct SocketAddress {
  sockaddr_storage addr{};
  bool valid = false;
};

SocketAddress parse_address(std::string text, int port) {
  SocketAddress e;
  if (port < 0 || port > 65535) return e;
  text = text.substr(0, text.find('%'));  // a link-local address's zone ("fe80::1%eth0")
  auto* v4 = reinterpret_cast<sockaddr_in*>(&e.addr);
  auto* v6 = reinterpret_cast<sockaddr_in6*>(&e.addr);
  if (inet_pton(AF_INET, text.c_str(), &v4->sin_addr) == 1) {
    v4->sin_family = AF_INET;
    v4->sin_port = htons(static_cast<uint16_t>(port));
    e.valid = true;
  } else if (inet_pton(AF_INET6, text.c_str(), &v6->sin6_addr) == 1) {
    v6->sin6_family = AF_INET6;
    v6->sin6_port = htons(static_cast<uint16_t>(port));
    e.valid = true;
  }
  return e;
}

bool same(const sockaddr_storage& a, const SocketAddress& b) {
  if (!b.valid || a.ss_family != b.addr.ss_family) return false;
  if (a.ss_family == AF_INET) {
    const auto& x = reinterpret_cast<const sockaddr_in&>(a);
    const auto& y = reinterpret_cast<const sockaddr_in&>(b.addr);
    return x.sin_port == y.sin_port && x.sin_addr.s_addr == y.sin_addr.s_addr;
  }
  if (a.ss_family == AF_INET6) {
    const auto& x = reinterpret_cast<const sockaddr_in6&>(a);
    const auto& y = reinterpret_cast<const sockaddr_in6&>(b.addr);
    // The scope id is left out: cpp-httplib's text of a link-local address may carry it or not.
    return x.sin6_port == y.sin6_port && std::memcmp(&x.sin6_addr, &y.sin6_addr, sizeof x.sin6_addr) == 0;
  }
  return false;
}

}  // namespace

ClientConnection::ClientConnection(const std::string& local_addr, int local_port, const std::string& remote_addr,
                                   int remote_port) {
  const SocketAddress local = parse_address(local_addr, local_port), remote = parse_address(remote_addr, remote_port);
  if (!local.valid || !remote.valid) return;
  DIR* dir = opendir("/proc/self/fd");
  if (!dir) return;
  const int own = dirfd(dir);
  while (const dirent* entry = readdir(dir)) {
    char* end = nullptr;
    const long fd = std::strtol(entry->d_name, &end, 10);
    if (end == entry->d_name || *end != '\0' || fd == own) continue;
    struct stat st {};
    if (fstat(static_cast<int>(fd), &st) != 0 || !S_ISSOCK(st.st_mode)) continue;
    sockaddr_storage here{}, peer{};
    socklen_t here_len = sizeof here, peer_len = sizeof peer;
    if (getsockname(static_cast<int>(fd), reinterpret_cast<sockaddr*>(&here), &here_len) != 0 ||
        getpeername(static_cast<int>(fd), reinterpret_cast<sockaddr*>(&peer), &peer_len) != 0)
      continue;
    if (same(here, local) && same(peer, remote)) {
      fd_ = static_cast<int>(fd);
      break;
    }
  }
  closedir(dir);
}

bool ClientConnection::gone() const {
  if (fd_ < 0) return false;
  pollfd p{fd_, POLLIN, 0};
  const int n = poll(&p, 1, 0);
  if (n < 0) return errno != EINTR && errno != EAGAIN;
  if (n == 0) return false;                                     // nothing to read: the client waits for its reply
  if (p.revents & (POLLERR | POLLHUP | POLLNVAL)) return true;  // reset, or closed both ways
  char byte;
  const ssize_t got = recv(fd_, &byte, 1, MSG_PEEK | MSG_DONTWAIT);
  if (got > 0) return false;  // its next request, sent early: still there
  if (got == 0) return true;  // the end of its stream: it closed the connection
  return errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR;
}

}  // namespace trit::server
