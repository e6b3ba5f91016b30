// Test helper for tst_storage_durability: streams a reply into the database at argv[1] forever (one
// token every 2 ms, through ReplyWriter like the app), printing a line each time a batch reaches the
// disk, until the test kills it with SIGKILL. Tokens are "t0 t1 t2 ..." so the test can tell exactly
// which prefix was kept.
#include <QCoreApplication>
#include <QElapsedTimer>
#include <QThread>
#include <cstdio>

#include "storage/conversation_store.h"
#include "storage/reply_writer.h"

int main(int argc, char* argv[]) {
  QCoreApplication app(argc, argv);
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s DATABASE\n", argv[0]);
    return 2;
  }
  try {
    trit::storage::ConversationStore store(QString::fromLocal8Bit(argv[1]));
    const auto conversation = store.createConversation();
    const auto question = store.addMessage(conversation, 0, trit::storage::Role::User, QStringLiteral("Count."));
    trit::storage::ReplyWriter writer(store);
    const auto reply = writer.begin(conversation, question);
    std::printf("reply %lld\n", static_cast<long long>(reply));
    std::fflush(stdout);
    QElapsedTimer lifetime;
    lifetime.start();
    for (long long i = 0; lifetime.elapsed() < 60'000; ++i) {  // never outlive a broken test by much
      const int before = writer.flushCount();
      writer.append(QStringLiteral("t%1 ").arg(i));
      if (writer.flushCount() != before) {
        std::printf("flushed through t%lld\n", i);
        std::fflush(stdout);
      }
      QThread::msleep(2);
    }
  } catch (const trit::storage::StorageError& e) {
    std::fprintf(stderr, "helper: %s\n", e.what());
    return 1;
  }
  std::fprintf(stderr, "helper: nobody killed me within 60 s\n");
  return 3;
}
