// Scale benchmark for the conversation store (issue 5; not a test): fills a database with 10,000
// conversations of 100 messages each, then times what the user waits for: opening the database, the
// sidebar's first page, the whole list, reloading one conversation, and full-text searches. Prints
// the median of repeated runs. Figures are kept in docs/storage.md.
//
//   trit_storage_bench [--conversations N] [--messages M] [--dir DIR] [--keep]
#include <time.h>
#include <QCoreApplication>
#include <QElapsedTimer>
#include <QTemporaryDir>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <random>

#include "storage/conversation_list_model.h"
#include "storage/conversation_store.h"

using namespace trit::storage;

namespace {

// Words with a Zipf-like frequency: a few very common ones and a long tail, like chat text.
class TextMaker {
 public:
  explicit TextMaker(std::uint32_t seed) : rng_(seed) {
    static const char* common[] = {"the",    "a",       "to",   "of",    "and",     "is",    "in",
                                   "it",     "you",     "that", "model", "weights", "token", "memory",
                                   "please", "explain", "why",  "how",   "what"};
    for (const char* w : common) words_ << QString::fromLatin1(w);
    static const char* syllables[] = {"ka", "lo", "mi", "ter", "na", "ri", "so", "vu", "pe", "dan", "ex", "ul"};
    for (int i = 0; words_.size() < 20000; ++i) {
      QString w;
      for (int s = 0, n = 2 + i % 3, x = i; s < n; ++s, x /= 12) w += QString::fromLatin1(syllables[(x + s * 5) % 12]);
      w += QString::number(i % 97);
      words_ << w;
    }
    for (int i = 0; i < words_.size(); ++i) weights_.push_back(1.0 / std::pow(i + 1.0, 1.05));
    pick_ = std::discrete_distribution<int>(weights_.begin(), weights_.end());
  }
  QString sentence(int minWords, int maxWords) {
    const int n = std::uniform_int_distribution<int>(minWords, maxWords)(rng_);
    QString s;
    for (int i = 0; i < n; ++i) {
      if (i) s += QLatin1Char(' ');
      s += words_[pick_(rng_)];
    }
    return s;
  }
  const QStringList& words() const { return words_; }

 private:
  std::mt19937 rng_;
  QStringList words_;
  std::vector<double> weights_;
  std::discrete_distribution<int> pick_;
};

double cpuMsNow() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) * 1e3 + static_cast<double>(ts.tv_nsec) / 1e6;
}

// Median wall-clock time and median CPU time of this process, in ms. On a busy machine the wall
// time includes waiting for a core; the CPU time is the work itself.
struct Timing {
  double wallMs;
  double cpuMs;
};

Timing median(int runs, const std::function<void()>& f) {
  std::vector<double> wall, cpu;
  for (int i = 0; i < runs; ++i) {
    QElapsedTimer t;
    const double c0 = cpuMsNow();
    t.start();
    f();
    wall.push_back(static_cast<double>(t.nsecsElapsed()) / 1e6);
    cpu.push_back(cpuMsNow() - c0);
  }
  std::sort(wall.begin(), wall.end());
  std::sort(cpu.begin(), cpu.end());
  return {wall[wall.size() / 2], cpu[cpu.size() / 2]};
}

}  // namespace

int main(int argc, char* argv[]) {
  QCoreApplication app(argc, argv);
  int conversations = 10000, messages = 100;
  QString dirArg;
  bool keep = false;
  const QStringList args = app.arguments();
  for (int i = 1; i < args.size(); ++i) {
    if (args[i] == QLatin1String("--conversations") && i + 1 < args.size())
      conversations = args[++i].toInt();
    else if (args[i] == QLatin1String("--messages") && i + 1 < args.size())
      messages = args[++i].toInt();
    else if (args[i] == QLatin1String("--dir") && i + 1 < args.size())
      dirArg = args[++i];
    else if (args[i] == QLatin1String("--keep"))
      keep = true;
    else {
      std::fprintf(stderr, "usage: %s [--conversations N] [--messages M] [--dir DIR] [--keep]\n", argv[0]);
      return 2;
    }
  }
  QTemporaryDir tmp;
  tmp.setAutoRemove(!keep);
  const QString dir = dirArg.isEmpty() ? tmp.path() : dirArg;
  const QString path = dir + QStringLiteral("/conversations.sqlite3");

  try {
    bool fill = true;
    {
      ConversationStore store(path);
      fill = store.conversationCount() == 0;
    }
    if (fill) {
      std::printf("filling %s: %d conversations x %d messages\n", qPrintable(path), conversations, messages);
      std::fflush(stdout);
      ConversationStore store(path);
      TextMaker text(42);
      QElapsedTimer t;
      t.start();
      const qint64 start = ConversationStore::nowMs() - qint64{conversations} * 60'000;
      for (int c = 0; c < conversations; ++c) {
        Conversation conv;
        conv.title = text.sentence(3, 7);
        conv.createdMs = start + qint64{c} * 60'000;
        conv.updatedMs = conv.createdMs + messages * 500;
        conv.pinned = c % 500 == 0;
        conv.model = QStringLiteral("bitnet-b1.58-2B-4T");
        QList<ConversationStore::ImportedMessage> list;
        for (int m = 0; m < messages; ++m) {
          ConversationStore::ImportedMessage im;
          im.parentIndex = m - 1;
          im.message.position = m;
          im.message.role = m % 2 ? Role::Assistant : Role::User;
          im.message.text = m % 2 ? text.sentence(20, 120) : text.sentence(5, 30);
          im.message.createdMs = conv.createdMs + m * 500;
          if (m % 2) {
            im.message.finish = FinishReason::Stop;
            im.message.stats = ReplyStats{100 + m, 50, 400, 30, 90};
          }
          list.append(im);
        }
        store.insertConversation(conv, list);
        if ((c + 1) % 1000 == 0) {
          std::printf("  %d conversations, %.0f s\n", c + 1, t.elapsed() / 1000.0);
          std::fflush(stdout);
        }
      }
      store.database().exec("PRAGMA optimize");
      std::printf("filled in %.1f s\n", t.elapsed() / 1000.0);
    }
    const qint64 bytes = QFileInfo(path).size() + QFileInfo(path + QStringLiteral("-wal")).size();
    std::printf("database: %.1f MiB\n\n", bytes / 1048576.0);

    const int runs = 21;
    std::printf("%-52s %10s %10s\n", "operation (median of 21 runs)", "wall ms", "CPU ms");
    const auto report = [](const char* what, Timing t) {
      std::printf("%-52s %10.2f %10.2f\n", what, t.wallMs, t.cpuMs);
    };
    report("open the database (no migration needed)", median(runs, [&] { ConversationStore s(path); }));
    ConversationStore store(path);
    const int total = store.conversationCount();
    report("sidebar: ConversationListModel first page (200)", median(runs, [&] { ConversationListModel m(&store); }));
    report("open + first page together", median(runs, [&] {
             ConversationStore s(path);
             ConversationListModel m(&s);
           }));
    report("list every conversation", median(runs, [&] {
             if (store.listConversations().size() != total) std::abort();
           }));
    const qint64 someId = store.listConversations(1, total / 2).first().id;
    report("reload one conversation (thread of 100 messages)", median(runs, [&] { store.thread(someId); }));

    TextMaker words(42);
    const QString commonWord = words.words()[0];    // in nearly every message
    const QString midWord = words.words()[300];     // in a few thousand
    const QString rareWord = words.words()[19000];  // in a handful
    struct Query {
      const char* label;
      QString text;
    };
    const Query queries[] = {
        {"search: very common word", commonWord},
        {"search: mid-frequency word", midWord},
        {"search: rare word", rareWord},
        // Longer than the prefix indexes (2-4 characters): FTS5 merges every word starting with it.
        {"search: common 7-letter word", words.words()[11]},
        {"search: two words", words.words()[50] + QLatin1Char(' ') + words.words()[120]},
        {"search: prefix as typed (3 letters)", words.words()[700].left(3)},
        {"search: phrase",
         QLatin1Char('"') + words.words()[0] + QLatin1Char(' ') + words.words()[1] + QLatin1Char('"')},
        {"search: no match", QStringLiteral("zzzqqq")},
    };
    for (const Query& q : queries) {
      int hits = 0;
      const Timing t = median(runs, [&] { hits = static_cast<int>(store.search(q.text, 50).size()); });
      std::printf("%-52s %10.2f %10.2f   (%s: %d hits shown)\n", q.label, t.wallMs, t.cpuMs, qPrintable(q.text), hits);
    }
  } catch (const StorageError& e) {
    std::fprintf(stderr, "storage_bench: %s\n", e.what());
    return 1;
  }
  return 0;
}
