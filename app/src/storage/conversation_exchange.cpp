#include "storage/conversation_exchange.h"

#include <QDateTime>
#include <QHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSet>
#include <cmath>
#include <limits>

#include "settings/sampling_fields.h"
#include "storage/conversation_store.h"

namespace trit::storage {
namespace {

QString isoTime(std::int64_t ms) {
  return QDateTime::fromMSecsSinceEpoch(ms, Qt::UTC).toString(Qt::ISODateWithMs);
}

QString humanTime(std::int64_t ms) {
  return QDateTime::fromMSecsSinceEpoch(ms, Qt::UTC).toString(QStringLiteral("yyyy-MM-dd HH:mm 'UTC'"));
}

Conversation requireConversation(ConversationStore& store, std::int64_t id) {
  const auto c = store.conversation(id);
  if (!c) throw ExchangeError(QStringLiteral("conversation %1 does not exist").arg(id));
  return *c;
}

QString statsLine(const Message& m) {
  QStringList parts;
  if (m.stats) {
    const ReplyStats& s = *m.stats;
    parts << QStringLiteral("%1 prompt tokens, %2 generated").arg(s.promptTokens).arg(s.generatedTokens);
    parts << QStringLiteral("prompt %1 tok/s").arg(s.promptTokensPerSecond, 0, 'f', 1);
    parts << QStringLiteral("generation %1 tok/s").arg(s.generationTokensPerSecond, 0, 'f', 1);
    parts << QStringLiteral("first token after %1 ms").arg(s.timeToFirstTokenMs, 0, 'f', 0);
  }
  if (m.finish) {
    parts << (*m.finish == FinishReason::Streaming ? QStringLiteral("still being written")
                                                   : QStringLiteral("finished: ") + finishReasonName(*m.finish));
  }
  return parts.join(QStringLiteral(" · "));
}

QString roleHeading(Role role) {
  switch (role) {
    case Role::System:
      return QStringLiteral("System");
    case Role::User:
      return QStringLiteral("User");
    case Role::Assistant:
      return QStringLiteral("Assistant");
  }
  return {};
}

}  // namespace

QString exportMarkdown(ConversationStore& store, std::int64_t conversationId) {
  const Conversation c = requireConversation(store, conversationId);
  QString md;
  md += QStringLiteral("# %1\n\n").arg(c.title.isEmpty() ? QStringLiteral("Untitled conversation") : c.title);
  md += QStringLiteral("- Created: %1\n- Last used: %2\n").arg(humanTime(c.createdMs), humanTime(c.updatedMs));
  if (!c.model.isEmpty()) md += QStringLiteral("- Model: %1\n").arg(c.model);
  if (!c.sampling.isEmpty()) {
    md += QStringLiteral("- Sampling: `%1`\n")
              .arg(QString::fromUtf8(QJsonDocument(c.sampling).toJson(QJsonDocument::Compact)));
  }
  if (!c.systemPrompt.isEmpty()) {
    md += QStringLiteral("\n**System prompt**\n\n");
    for (const QString& line : c.systemPrompt.split(QLatin1Char('\n'))) md += QStringLiteral("> %1\n").arg(line);
  }
  for (const ThreadMessage& tm : store.thread(conversationId)) {
    const Message& m = tm.message;
    md += QStringLiteral("\n## %1\n\n").arg(roleHeading(m.role));
    if (tm.variantCount > 1) {
      md += QStringLiteral("*Version %1 of %2 (the JSON export keeps all of them)*\n\n")
                .arg(m.variantIndex + 1)
                .arg(tm.variantCount);
    }
    md += m.text;
    if (!m.text.endsWith(QLatin1Char('\n'))) md += QLatin1Char('\n');
    const QString stats = statsLine(m);
    if (!stats.isEmpty()) md += QStringLiteral("\n*%1*\n").arg(stats);
  }
  return md;
}

QByteArray exportJson(ConversationStore& store, std::int64_t conversationId) {
  const Conversation c = requireConversation(store, conversationId);
  QJsonObject root;
  root[QStringLiteral("format")] = QString::fromLatin1(kExchangeFormat);
  root[QStringLiteral("version")] = kExchangeVersion;
  root[QStringLiteral("title")] = c.title;
  root[QStringLiteral("created")] = isoTime(c.createdMs);
  root[QStringLiteral("updated")] = isoTime(c.updatedMs);
  root[QStringLiteral("pinned")] = c.pinned;
  root[QStringLiteral("systemPrompt")] = c.systemPrompt;
  root[QStringLiteral("model")] = c.model;
  root[QStringLiteral("sampling")] = c.sampling;
  // Ids in the file are 1, 2, 3... in parent-before-child order, so they do not leak database ids and
  // a re-export of an import is byte-identical.
  QHash<std::int64_t, int> localId;
  QJsonArray messages;
  for (const Message& m : store.allMessages(conversationId)) {
    const int id = static_cast<int>(localId.size()) + 1;
    localId.insert(m.id, id);
    QJsonObject o;
    o[QStringLiteral("id")] = id;
    o[QStringLiteral("parent")] = m.parentId ? QJsonValue(localId.value(m.parentId)) : QJsonValue(QJsonValue::Null);
    o[QStringLiteral("variant")] = m.variantIndex;
    o[QStringLiteral("selected")] = m.selected;
    o[QStringLiteral("role")] = roleName(m.role);
    o[QStringLiteral("created")] = isoTime(m.createdMs);
    o[QStringLiteral("text")] = m.text;
    if (m.finish) {
      // A reply still streaming in another process is exported as it stands: cut off, so interrupted.
      const FinishReason f = *m.finish == FinishReason::Streaming ? FinishReason::Interrupted : *m.finish;
      o[QStringLiteral("finishReason")] = finishReasonName(f);
    }
    if (m.stats) {
      o[QStringLiteral("stats")] = QJsonObject{
          {QStringLiteral("promptTokens"), static_cast<qint64>(m.stats->promptTokens)},
          {QStringLiteral("generatedTokens"), static_cast<qint64>(m.stats->generatedTokens)},
          {QStringLiteral("promptTokensPerSecond"), m.stats->promptTokensPerSecond},
          {QStringLiteral("generationTokensPerSecond"), m.stats->generationTokensPerSecond},
          {QStringLiteral("timeToFirstTokenMs"), m.stats->timeToFirstTokenMs},
      };
    }
    messages.append(o);
  }
  root[QStringLiteral("messages")] = messages;
  return QJsonDocument(root).toJson(QJsonDocument::Indented);
}

namespace {

// The index of the first surrogate that is not half of a pair, or -1.
qsizetype loneSurrogateAt(const QString& s) {
  for (qsizetype i = 0; i < s.size(); ++i) {
    if (s[i].isHighSurrogate() && i + 1 < s.size() && s[i + 1].isLowSurrogate()) {
      ++i;
      continue;
    }
    if (s[i].isSurrogate()) return i;
  }
  return -1;
}

// Reads typed fields from one JSON object, naming the place ("messages[3].role") in every error.
class Reader {
 public:
  Reader(const QJsonObject& o, QString where) : o_(o), where_(std::move(where)) {}

  [[noreturn]] void fail(const QString& key, const QString& problem) const {
    throw ExchangeError(
        QStringLiteral("%1%2: %3").arg(where_, key.isEmpty() ? QString() : QLatin1Char('.') + key, problem));
  }
  QJsonValue require(const QString& key) const {
    const auto v = o_.value(key);
    if (v.isUndefined()) fail(key, QStringLiteral("missing"));
    return v;
  }
  QString string(const QString& key) const {
    const auto v = require(key);
    if (!v.isString()) fail(key, QStringLiteral("must be a string"));
    QString s = v.toString();
    // JSON can spell a lone UTF-16 surrogate ("\ud800"). No text Trit writes holds one, and the store
    // (UTF-8) would turn it into U+FFFD: refuse the file rather than change the text.
    if (const qsizetype at = loneSurrogateAt(s); at >= 0)
      fail(key, QStringLiteral("holds a lone UTF-16 surrogate (\\u%1) at character %2, which is not valid Unicode")
                    .arg(s[at].unicode(), 4, 16, QLatin1Char('0'))
                    .arg(at));
    return s;
  }
  bool boolean(const QString& key) const {
    const auto v = require(key);
    if (!v.isBool()) fail(key, QStringLiteral("must be true or false"));
    return v.toBool();
  }
  // Whole numbers up to `max` (9e15 keeps every one exact in a double); no value is ever wrapped.
  std::int64_t integer(const QString& key, std::int64_t min, std::int64_t max = 9'000'000'000'000'000) const {
    const auto v = require(key);
    const double d = v.toDouble(-1);
    if (!v.isDouble() || d != std::floor(d) || d < static_cast<double>(min) || d > static_cast<double>(max)) {
      const QString given = v.isDouble() ? QString::number(d, 'g', 17) : QStringLiteral("not a number");
      fail(key, max < 9'000'000'000'000'000
                    ? QStringLiteral("must be a whole number from %1 to %2 (got %3)").arg(min).arg(max).arg(given)
                    : QStringLiteral("must be a whole number of at least %1").arg(min));
    }
    return static_cast<std::int64_t>(d);
  }
  double number(const QString& key) const {
    const auto v = require(key);
    if (!v.isDouble() || v.toDouble() < 0) fail(key, QStringLiteral("must be a number, 0 or more"));
    return v.toDouble();
  }
  std::int64_t time(const QString& key) const {
    const QString s = string(key);
    const QDateTime t = QDateTime::fromString(s, Qt::ISODateWithMs);
    if (!t.isValid()) {
      fail(key,
           QStringLiteral("\"%1\" is not a date and time (expected ISO 8601, like 2026-01-31T12:00:00.000Z)").arg(s));
    }
    return t.toMSecsSinceEpoch();
  }
  QJsonObject object(const QString& key) const {
    const auto v = require(key);
    if (!v.isObject()) fail(key, QStringLiteral("must be an object"));
    return v.toObject();
  }
  const QJsonObject& json() const { return o_; }
  const QString& where() const { return where_; }

 private:
  QJsonObject o_;
  QString where_;
};

QString lineAndColumn(const QByteArray& text, int offset) {
  int line = 1, column = 1;
  for (int i = 0; i < offset && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++line;
      column = 1;
    } else {
      ++column;
    }
  }
  return QStringLiteral("line %1, column %2").arg(line).arg(column);
}

}  // namespace

std::int64_t importJson(ConversationStore& store, const QByteArray& json) {
  QJsonParseError parseError;
  const QJsonDocument doc = QJsonDocument::fromJson(json, &parseError);
  if (parseError.error != QJsonParseError::NoError) {
    throw ExchangeError(QStringLiteral("not valid JSON at %1: %2")
                            .arg(lineAndColumn(json, parseError.offset), parseError.errorString()));
  }
  if (!doc.isObject()) throw ExchangeError(QStringLiteral("the file must hold one JSON object (a conversation)"));
  const Reader root(doc.object(), QStringLiteral("conversation"));
  if (root.json().value(QStringLiteral("format")).toString() != QLatin1String(kExchangeFormat)) {
    throw ExchangeError(QStringLiteral("not a Trit conversation: \"format\" must be \"%1\"").arg(kExchangeFormat));
  }
  const std::int64_t version = root.integer(QStringLiteral("version"), 1);
  if (version > kExchangeVersion) {
    throw ExchangeError(QStringLiteral("conversation format version %1 is newer than this Trit understands (%2); "
                                       "update Trit to import it")
                            .arg(version)
                            .arg(kExchangeVersion));
  }

  Conversation c;
  c.title = root.string(QStringLiteral("title"));
  c.createdMs = root.time(QStringLiteral("created"));
  c.updatedMs = root.time(QStringLiteral("updated"));
  c.pinned = root.boolean(QStringLiteral("pinned"));
  c.systemPrompt = root.string(QStringLiteral("systemPrompt"));
  c.model = root.string(QStringLiteral("model"));
  c.sampling = root.object(QStringLiteral("sampling"));
  // Checked as the settings file is (settings/sampling_fields.h): a stored value must never fail a reply.
  QString samplingKey;
  if (const QString problem = chat::samplingJsonProblem(c.sampling, &samplingKey); !problem.isEmpty())
    root.fail(QStringLiteral("sampling.") + samplingKey, problem);

  const QJsonValue list = root.require(QStringLiteral("messages"));
  if (!list.isArray()) root.fail(QStringLiteral("messages"), QStringLiteral("must be an array"));
  QList<ConversationStore::ImportedMessage> messages;
  QHash<std::int64_t, int> indexOfId;           // file id -> index in `messages`
  QSet<QPair<int, std::int64_t>> variantsSeen;  // (parent index, variant) pairs, which must be unique
  QSet<int> groupsWithSelection;                // parent indexes (-1: top) whose shown child is known
  const QJsonArray array = list.toArray();
  for (int i = 0; i < array.size(); ++i) {
    const QString where = QStringLiteral("messages[%1]").arg(i);
    if (!array[i].isObject()) throw ExchangeError(where + QStringLiteral(": must be an object"));
    const Reader r(array[i].toObject(), where);
    ConversationStore::ImportedMessage im;
    Message& m = im.message;
    const std::int64_t id = r.integer(QStringLiteral("id"), 1);
    if (indexOfId.contains(id)) r.fail(QStringLiteral("id"), QStringLiteral("%1 is used twice").arg(id));
    const QJsonValue parent = r.require(QStringLiteral("parent"));
    if (!parent.isNull()) {
      const std::int64_t parentId = r.integer(QStringLiteral("parent"), 1);
      if (!indexOfId.contains(parentId)) {
        r.fail(
            QStringLiteral("parent"),
            QStringLiteral("%1 is not the id of an earlier message (parents must come before replies)").arg(parentId));
      }
      im.parentIndex = indexOfId.value(parentId);
      m.position = messages[im.parentIndex].message.position + 1;
    }
    m.variantIndex = static_cast<int>(r.integer(QStringLiteral("variant"), 0, std::numeric_limits<int>::max()));
    if (variantsSeen.contains({im.parentIndex, m.variantIndex})) {
      r.fail(QStringLiteral("variant"),
             QStringLiteral("%1 is already used by another version of this message").arg(m.variantIndex));
    }
    variantsSeen.insert({im.parentIndex, m.variantIndex});
    m.selected = r.boolean(QStringLiteral("selected"));
    if (m.selected && groupsWithSelection.contains(im.parentIndex)) {
      r.fail(QStringLiteral("selected"), QStringLiteral("another version of this message is already selected"));
    }
    if (m.selected) groupsWithSelection.insert(im.parentIndex);
    const QString role = r.string(QStringLiteral("role"));
    const auto parsedRole = roleFromName(role);
    if (!parsedRole)
      r.fail(QStringLiteral("role"), QStringLiteral("must be system, user or assistant, not \"%1\"").arg(role));
    m.role = *parsedRole;
    m.createdMs = r.time(QStringLiteral("created"));
    m.text = r.string(QStringLiteral("text"));
    if (m.role == Role::Assistant) {
      const QString finish = r.string(QStringLiteral("finishReason"));
      const auto parsed = finishReasonFromName(finish);
      if (!parsed) {
        r.fail(QStringLiteral("finishReason"),
               QStringLiteral("must be stop, length, cancelled, error or interrupted, not \"%1\"").arg(finish));
      }
      m.finish = *parsed;
    } else if (r.json().contains(QStringLiteral("finishReason"))) {
      r.fail(QStringLiteral("finishReason"), QStringLiteral("only replies (role assistant) have one"));
    }
    if (r.json().contains(QStringLiteral("stats"))) {
      const Reader s(r.object(QStringLiteral("stats")), where + QStringLiteral(".stats"));
      m.stats = ReplyStats{
          s.integer(QStringLiteral("promptTokens"), 0), s.integer(QStringLiteral("generatedTokens"), 0),
          s.number(QStringLiteral("promptTokensPerSecond")), s.number(QStringLiteral("generationTokensPerSecond")),
          s.number(QStringLiteral("timeToFirstTokenMs"))};
    }
    indexOfId.insert(id, static_cast<int>(messages.size()));
    messages.append(im);
  }
  return store.insertConversation(c, messages);
}

}  // namespace trit::storage
