#pragma once
// Whether the client of a request is still connected, for a handler that waits without writing: a
// non-streamed completion writes nothing until its reply is done, and cpp-httplib 0.11 (Debian 12)
// notices a closed connection only when it writes. It gives handlers no socket either (no
// Request::is_connection_closed before 0.14, no Stream), only the connection's two addresses: they
// name one TCP connection, so the socket is found among this process's descriptors by them.
#include <string>

namespace trit::server {

class ClientConnection {
 public:
  // The server side of the connection from remote_addr:remote_port to local_addr:local_port (as
  // cpp-httplib's Request gives them). If it cannot be found (no /proc), gone() is always false.
  ClientConnection(const std::string& local_addr, int local_port, const std::string& remote_addr, int remote_port);

  bool found() const { return fd_ >= 0; }
  // True once the client has closed or reset the connection; data it sent already (a pipelined next
  // request) counts as connected. The test cpp-httplib uses inside before it writes
  // (detail::is_socket_alive, which handlers cannot call): readable with nothing to read is the peer's
  // end. Costs one poll() and at most one recv().
  bool gone() const;

 private:
  // Owned by cpp-httplib's worker, which is inside our handler while this object lives: it stays open.
  int fd_ = -1;
};

}  // namespace trit::server
