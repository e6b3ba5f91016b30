#include "download_task.h"

#include <QDir>
#include <QFileInfo>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QRegularExpression>
#include <QStorageInfo>
#include <QTimer>
#include <cmath>
#include <filesystem>

#include "file_hash.h"
#include "network_errors.h"
#include "sentence.h"
#include "url_policy.h"

namespace trit::models {

namespace {
// The reply buffers up to kReadBufferBytes; each readyRead empties it with one read() into block_ and one
// write() to the part file (every read() on the reply also sends a "buffer freed" signal to Qt's network
// thread, so few large reads mean few wake-ups there).
constexpr qsizetype kReadBufferBytes = 8 << 20;

// "bytes START-END/TOTAL" of a 206; TOTAL may be "*" (unknown).
bool parseContentRange(const QByteArray& value, qint64* start, qint64* total) {
  static const QRegularExpression re(QStringLiteral("^bytes\\s+(\\d+)-(\\d+)/(\\d+|\\*)$"));
  const auto m = re.match(QString::fromLatin1(value).trimmed());
  if (!m.hasMatch()) return false;
  *start = m.captured(1).toLongLong();
  *total = m.captured(3) == QLatin1String("*") ? -1 : m.captured(3).toLongLong();
  return true;
}

// "bytes */TOTAL" of a 416.
qint64 unsatisfiedTotal(const QByteArray& value) {
  static const QRegularExpression re(QStringLiteral("^bytes\\s+\\*/(\\d+)$"));
  const auto m = re.match(QString::fromLatin1(value).trimmed());
  return m.hasMatch() ? m.captured(1).toLongLong() : -1;
}

// Hugging Face sends the LFS object's SHA-256 as X-Linked-ETag: "hex" (sometimes weak, W/"hex"), read the
// way huggingface_hub's _normalize_etag does (drop "W/", then the quotes). A value that is not 64 hex
// digits (a git blob's SHA-1 for a file not in LFS, say) is present but unusable.
struct LinkedEtag {
  bool present = false;
  QString raw;     // as sent, for messages
  QString sha256;  // lower-case hex, or empty when unusable
};
LinkedEtag linkedEtag(const QNetworkReply* reply) {
  LinkedEtag e;
  if (!reply->hasRawHeader("X-Linked-ETag")) return e;
  e.present = true;
  e.raw = QString::fromLatin1(reply->rawHeader("X-Linked-ETag")).trimmed();
  QString v = e.raw;
  if (v.startsWith(QLatin1String("W/"))) v = v.mid(2);
  if (v.size() >= 2 && v.startsWith(QLatin1Char('"')) && v.endsWith(QLatin1Char('"'))) v = v.mid(1, v.size() - 2);
  static const QRegularExpression hex(QStringLiteral("^[0-9a-fA-F]{64}$"));
  if (hex.match(v).hasMatch()) e.sha256 = v.toLower();
  return e;
}

qint64 defaultFreeSpace(const QString& directory) {
  QStorageInfo info(directory);
  return info.isValid() ? info.bytesAvailable() : -1;
}

bool isActive(DownloadTask::State s) {
  using S = DownloadTask::State;
  return s == S::Connecting || s == S::Downloading || s == S::Stalled || s == S::Waiting || s == S::Verifying;
}

}  // namespace

DownloadTask::DownloadTask(DownloadRequest request, DownloadOptions options, QObject* parent)
    : QObject(parent), request_(std::move(request)), options_(std::move(options)) {
  if (!options_.freeSpace) options_.freeSpace = defaultFreeSpace;
}

DownloadTask::~DownloadTask() {
  if (reply_) {
    stop_ = Stop::Pause;
    reply_->abort();
  }
  closePart();
}

QString DownloadTask::finalPath() const {
  return QDir(request_.directory).filePath(request_.fileName);
}

void DownloadTask::setState(State s, const QString& message) {
  state_ = s;
  emit stateChanged(s, message);
}

void DownloadTask::start() {
  if (isActive(state_)) return;
  if (!nam_) {
    // Created here, on the worker thread, so the network objects live where they are used.
    nam_ = new QNetworkAccessManager(this);
    nam_->setStrictTransportSecurityEnabled(true);
    stallTimer_ = new QTimer(this);
    stallTimer_->setInterval(std::max(20, options_.stallTimeoutMs / 5));
    connect(stallTimer_, &QTimer::timeout, this, &DownloadTask::onStallCheck);
    retryTimer_ = new QTimer(this);
    retryTimer_->setSingleShot(true);
    // A coarse timer may fire up to 5% early: a back-off (or a server's Retry-After) is a minimum.
    retryTimer_->setTimerType(Qt::PreciseTimer);
    connect(retryTimer_, &QTimer::timeout, this, [this] {
      firstHop_ = true;
      sendRequest(request_.url);
    });
    clock_.start();
  }
  retries_ = 0;
  restarts_ = 0;
  stop_ = Stop::None;
  if (!prepare()) return;
  firstHop_ = true;
  sendRequest(request_.url);
}

bool DownloadTask::settledByExistingFile() {
  const QString dest = finalPath();
  if (!QFileInfo::exists(dest)) return false;
  QString expected = request_.expectedSha256;
  QString source = QStringLiteral("catalogue");
  const auto record = readVerifiedRecord(recordPath(dest));
  if (expected.isEmpty() && record && record->url == request_.url.toString()) {
    expected = record->sha256;
    source = record->verifiedBy;
  }
  if (!expected.isEmpty()) {
    setState(State::Verifying,
             QStringLiteral("%1 is already in the models folder; checking its SHA-256.").arg(request_.fileName));
    QString error;
    if (sha256OfFile(dest, &error) == expected) {
      if (!record || record->sha256 != expected) {
        VerifiedRecord r{request_.id, request_.url.toString(), expected, source, QFileInfo(dest).size()};
        writeVerifiedRecord(recordPath(dest), r, &error);
      }
      setState(State::Done, QStringLiteral("Already installed and verified."));
      emit finished(true, dest, source);
      return true;
    }
  }
  // Another file of that name (the user's own model, a damaged copy, or one nothing can vouch for):
  // replaced or set aside only when the user said so, and then only once the download is verified.
  if (request_.existing != ExistingFile::Keep) return false;
  conflict(expected.isEmpty()
               ? QStringLiteral("A file named %1 is already in the models folder (%2) and cannot be checked: the "
                                "catalogue gives no SHA-256 for %3. It was kept, and nothing was downloaded.")
                     .arg(request_.fileName, dest, request_.id)
               : QStringLiteral("A different file named %1 is already in the models folder (%2): it is not the "
                                "catalogue's %3 (its SHA-256 differs). It was kept, and nothing was downloaded.")
                     .arg(request_.fileName, dest, request_.id));
  return true;
}

void DownloadTask::conflict(const QString& why) {
  setState(State::Conflict, why);
  emit finished(false, why, QString());
}

namespace {
// "NAME (2).gguf", "NAME (3).gguf", ...: the first name free in the same folder.
QString keptName(const QString& path) {
  const QFileInfo info(path);
  const QString suffix = info.suffix().isEmpty() ? QString() : QLatin1Char('.') + info.suffix();
  const QString stem = info.fileName().chopped(suffix.size());
  for (int n = 2;; ++n) {
    QString candidate = info.dir().filePath(QStringLiteral("%1 (%2)%3").arg(stem).arg(n).arg(suffix));
    if (!QFileInfo::exists(candidate) && !QFileInfo::exists(partPath(candidate))) return candidate;
  }
}
}  // namespace

bool DownloadTask::makeRoomForInstall() {
  const QString dest = finalPath();
  if (!QFileInfo::exists(dest)) return true;
  switch (request_.existing) {
    case ExistingFile::Replace:
      return true;  // the rename replaces it, as the user confirmed
    case ExistingFile::Keep:
      // It appeared while the download ran: still not ours to replace. The verified .part stays.
      closePart();
      savePartState();
      conflict(QStringLiteral("A file named %1 appeared in the models folder (%2) during the download. It was kept; "
                              "the download was not installed.")
                   .arg(request_.fileName, dest));
      return false;
    case ExistingFile::KeepBoth: {
      const QString kept = keptName(dest);
      if (!QFile::rename(dest, kept)) {  // QFile::rename never overwrites
        fail(QStringLiteral("Cannot rename the other %1 to %2 to keep both files; nothing was replaced.")
                 .arg(dest, kept),
             false);
        return false;
      }
      setState(
          State::Verifying,
          QStringLiteral("The other file named %1 was kept as %2.").arg(request_.fileName, QFileInfo(kept).fileName()));
      return true;
    }
  }
  return false;
}

bool DownloadTask::prepare() {
  if (!QDir().mkpath(request_.directory)) {
    fail(QStringLiteral("Cannot create the models folder %1.").arg(request_.directory), false);
    return false;
  }
  if (settledByExistingFile()) return false;
  const QString part = partPath(finalPath());
  const auto saved = readPartState(partStatePath(finalPath()));
  offset_ = 0;
  hash_.reset();
  part_ = PartState{request_.url.toString(), request_.expectedSha256, request_.expectedSize, {}, {}, {}, -1};
  const qint64 partSize = QFileInfo(part).size();
  // Resume only bytes that are known to belong to this very download.
  if (saved && partSize > 0 && saved->url == part_.url && saved->expectedSha256 == part_.expectedSha256 &&
      saved->expectedSize == part_.expectedSize && (saved->total < 0 || partSize <= saved->total)) {
    // The streaming hash continues from the bytes an earlier run wrote, read back once.
    QString error;
    if (addFileToHash(part, partSize, &hash_, &error)) {
      part_ = *saved;
      offset_ = partSize;
      setState(State::Connecting, QStringLiteral("Resuming from %1.").arg(formatBytes(offset_)));
    } else {
      hash_.reset();
    }
  }
  if (request_.expectedSize > 0) {
    const qint64 need = request_.expectedSize - offset_ + options_.freeSpaceMarginBytes;
    const qint64 free = options_.freeSpace(request_.directory);
    if (free >= 0 && free < need) {
      fail(QStringLiteral("Not enough free disk space in %1: the download needs %2 more, but only %3 are free. "
                          "Free some space and try again.")
               .arg(request_.directory, formatBytes(need), formatBytes(free)),
           false);
      return false;
    }
  }
  return true;
}

void DownloadTask::resetPart() {
  closePart();
  offset_ = 0;
  attemptStart_ = 0;
  hash_.reset();
  part_.etag.clear();
  part_.lastModified.clear();
  part_.total = -1;
}

void DownloadTask::closePart() {
  if (file_.isOpen()) file_.close();
}

void DownloadTask::savePartState() {
  QString error;
  if (offset_ > 0) writePartState(partStatePath(finalPath()), part_, &error);
}

void DownloadTask::sendRequest(const QUrl& url) {
  if (firstHop_) {
    chain_ = {url};
    chainLinked_.clear();
    unusableLinked_.clear();
  }
  QNetworkRequest req(url);
  // Redirects are followed by hand: every hop is checked against url_policy.h, and each response's
  // X-Linked-ETag is read (the CDN's final answer usually has none).
  req.setAttribute(QNetworkRequest::RedirectPolicyAttribute, QNetworkRequest::ManualRedirectPolicy);
  req.setRawHeader("User-Agent", QByteArrayLiteral("Trit/" TRIT_APP_VERSION));
  req.setRawHeader("Accept-Encoding", "identity");  // byte ranges of the file itself, never re-encoded
  if (offset_ > 0) {
    req.setRawHeader("Range", "bytes=" + QByteArray::number(offset_) + '-');
    // If the file changed since, the server answers 200 with the new file instead of a wrong range.
    if (!part_.etag.isEmpty() && !part_.etag.startsWith(QLatin1String("W/")))
      req.setRawHeader("If-Range", part_.etag.toLatin1());
    else if (!part_.lastModified.isEmpty())
      req.setRawHeader("If-Range", part_.lastModified.toLatin1());
  }
  headersSeen_ = false;
  writing_ = false;
  refused_.clear();
  attemptStart_ = offset_;
  if (firstHop_) setState(State::Connecting, QStringLiteral("Connecting to %1.").arg(url.host()));
  reply_ = nam_->get(req);
  reply_->setReadBufferSize(kReadBufferBytes);
  connect(reply_, &QNetworkReply::metaDataChanged, this, &DownloadTask::onMetaData);
  connect(reply_, &QNetworkReply::readyRead, this, &DownloadTask::onReadyRead);
  connect(reply_, &QNetworkReply::finished, this, &DownloadTask::onFinished);
  sinceData_.start();
  stallTimer_->start();
}

void DownloadTask::onMetaData() {
  if (!reply_ || headersSeen_) return;
  headersSeen_ = true;
  sinceData_.restart();
  // Any response of the chain may carry X-Linked-ETag: Hugging Face's resolve URL does (also after a
  // relative redirect to a renamed repository, which is where huggingface_hub reads it), a mirror may
  // send it with the file itself. Two different values in one chain cannot both be right.
  const LinkedEtag linked = linkedEtag(reply_);
  if (linked.present && linked.sha256.isEmpty()) unusableLinked_ = linked.raw;
  if (!linked.sha256.isEmpty()) {
    if (!chainLinked_.isEmpty() && chainLinked_ != linked.sha256) {
      refused_ = QStringLiteral(
                     "The server named two different SHA-256 values for %1 (X-Linked-ETag %2, then %3 at "
                     "%4), so neither can be trusted; nothing was installed.")
                     .arg(request_.id, chainLinked_, linked.sha256, reply_->url().toString());
    } else {
      chainLinked_ = linked.sha256;
      if (!part_.linkedSha256.isEmpty() && part_.linkedSha256 != linked.sha256 && offset_ > 0) {
        // The file behind the URL changed since the part was started: its bytes are useless.
        resetPart();
        refused_ = QStringLiteral("restart");
      }
      part_.linkedSha256 = linked.sha256;
    }
  }
  const int status = reply_->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
  if (refused_.isEmpty() && (status == 200 || status == 206) && request_.expectedSha256.isEmpty() &&
      part_.linkedSha256.isEmpty()) {
    // Refused before its bytes: gigabytes that could never be accepted are not worth fetching. A resumed
    // part keeps the hash its first response named (part_, from the sidecar).
    refused_ = unusableLinked_.isEmpty()
                   ? QStringLiteral(
                         "%1 cannot be verified: the catalogue gives no SHA-256 and the server sent no "
                         "X-Linked-ETag. Nothing was downloaded.")
                         .arg(request_.fileName)
                   : QStringLiteral(
                         "%1 cannot be verified: the catalogue gives no SHA-256 and the server's "
                         "X-Linked-ETag (%2) is not a SHA-256. Nothing was downloaded.")
                         .arg(request_.fileName, unusableLinked_);
  }
  if (refused_.isEmpty() && (status == 200 || status == 206)) {
    if (!acceptBody(status)) reply_->abort();
  } else if (!refused_.isEmpty()) {
    reply_->abort();
  }
}

bool DownloadTask::acceptBody(int status) {
  qint64 total = -1;
  if (status == 206) {
    qint64 start = -1;
    if (!parseContentRange(reply_->rawHeader("Content-Range"), &start, &total) || start != offset_) {
      // Appending bytes from anywhere else would corrupt the file: start over from zero.
      refused_ = QStringLiteral("restart");
      resetPart();
      return false;
    }
  } else {
    if (offset_ > 0) {
      setState(State::Downloading, QStringLiteral("The server cannot resume this download; starting over."));
      resetPart();
    }
    const QVariant length = reply_->header(QNetworkRequest::ContentLengthHeader);
    total = length.isValid() ? length.toLongLong() : -1;
  }
  if (request_.expectedSize > 0 && total >= 0 && total != request_.expectedSize) {
    refused_ = QStringLiteral(
                   "The server offers %1 bytes for %2, but the catalogue says %3 bytes; refusing the "
                   "download.")
                   .arg(total)
                   .arg(request_.id)
                   .arg(request_.expectedSize);
    return false;
  }
  if (total > 0 && request_.expectedSize <= 0) {
    const qint64 need = total - offset_ + options_.freeSpaceMarginBytes;
    const qint64 free = options_.freeSpace(request_.directory);
    if (free >= 0 && free < need) {
      refused_ = QStringLiteral(
                     "Not enough free disk space in %1: the download needs %2 more, but only %3 are "
                     "free. Free some space and try again.")
                     .arg(request_.directory, formatBytes(need), formatBytes(free));
      return false;
    }
  }
  if (!file_.isOpen()) {
    file_.setFileName(partPath(finalPath()));
    const QIODevice::OpenMode mode = offset_ > 0 ? QIODevice::Append : QIODevice::WriteOnly | QIODevice::Truncate;
    if (!file_.open(mode | QIODevice::Unbuffered)) {
      refused_ = QStringLiteral("Cannot write the download to %1: %2.").arg(file_.fileName(), file_.errorString());
      return false;
    }
  }
  part_.total = total;
  part_.etag = QString::fromLatin1(reply_->rawHeader("ETag"));
  part_.lastModified = QString::fromLatin1(reply_->rawHeader("Last-Modified"));
  savePartState();
  writing_ = true;
  retries_ = std::min(retries_, options_.maxRetries);
  setState(State::Downloading, {});
  emitProgress(true);
  return true;
}

void DownloadTask::onReadyRead() {
  if (!reply_) return;
  if (block_.isEmpty()) block_.resize(kReadBufferBytes);
  while (reply_ && reply_->bytesAvailable() > 0) {
    const qint64 n = reply_->read(block_.data(), block_.size());
    if (n <= 0) return;
    sinceData_.restart();
    if (!writing_) continue;  // an error page or a redirect's body
    if (!consume(QByteArrayView(block_.constData(), n))) return;
  }
}

bool DownloadTask::consume(QByteArrayView data) {
  if (part_.total >= 0 && offset_ + data.size() > part_.total) {
    refused_ =
        QStringLiteral("The server sent more bytes than it announced (%1); the download is broken.").arg(part_.total);
    writing_ = false;
    reply_->abort();
    return false;
  }
  const qint64 written = file_.write(data.data(), data.size());
  if (written != data.size()) {
    // Disk full (or I/O error) while writing: keep what was written for a later resume.
    const QString why = file_.errorString();
    if (written > 0) {
      hash_.addData(QByteArrayView(data.data(), written));
      offset_ += written;
    }
    file_.resize(offset_);
    refused_ = QStringLiteral(
                   "Cannot write to %1: %2. The disk may be full; free some space and resume — the "
                   "partial download (%3) is kept.")
                   .arg(file_.fileName(), why, formatBytes(offset_));
    writing_ = false;
    reply_->abort();
    return false;
  }
  hash_.addData(data);
  offset_ += written;
  if (state_ == State::Stalled) setState(State::Downloading, {});
  emitProgress(false);
  return true;
}

void DownloadTask::onStallCheck() {
  if (!reply_ || sinceData_.elapsed() < options_.stallTimeoutMs) return;
  stop_ = Stop::Stall;
  setState(State::Stalled, QStringLiteral("No data received for %1 s.").arg(options_.stallTimeoutMs / 1000.0));
  reply_->abort();
}

void DownloadTask::onFinished() {
  QNetworkReply* reply = reply_;
  if (!reply || sender() != reply) return;
  reply_ = nullptr;
  reply->deleteLater();
  stallTimer_->stop();
  const int status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
  const Stop stop = std::exchange(stop_, Stop::None);
  if (stop == Stop::Pause) {
    closePart();
    savePartState();
    setState(State::Paused, QStringLiteral("Paused at %1.").arg(formatBytes(offset_)));
    emitProgress(true);
    return;
  }
  if (stop == Stop::Cancel) {
    closePart();
    QFile::remove(partPath(finalPath()));
    QFile::remove(partStatePath(finalPath()));
    setState(State::Cancelled, QStringLiteral("Cancelled; the partial file was removed."));
    emit finished(false, QStringLiteral("The download was cancelled."), {});
    return;
  }
  if (writing_) file_.flush();
  if (offset_ > attemptStart_) retries_ = 0;  // progress was made: the connection is flaky, not dead
  if (stop == Stop::Stall) {
    closePart();
    savePartState();
    return retryOrFail(
        QStringLiteral("The transfer stalled: no data arrived for %1 s.").arg(options_.stallTimeoutMs / 1000.0));
  }
  if (refused_ == QLatin1String("restart")) {
    if (++restarts_ > 2)
      return fail(QStringLiteral("The server at %1 keeps sending byte ranges that do not match; "
                                 "giving up.")
                      .arg(reply->url().host()),
                  true);
    firstHop_ = true;
    return sendRequest(request_.url);
  }
  if (!refused_.isEmpty()) {
    const bool keep =
        refused_.startsWith(QLatin1String("Cannot write")) || refused_.startsWith(QLatin1String("Not enough"));
    return fail(refused_, !keep);
  }
  if (status >= 300 && status < 400 && reply->hasRawHeader("Location")) {
    const QUrl location = reply->url().resolved(QUrl::fromEncoded(reply->rawHeader("Location")));
    return handleRedirect(reply->url(), location);
  }
  if (status == 416) {
    // Range not satisfiable: if the part already holds the whole file, it only needs checking.
    const qint64 total = unsatisfiedTotal(reply->rawHeader("Content-Range"));
    if (total >= 0 && total == offset_ && offset_ > 0) {
      part_.total = total;
      closePart();
      return verifyAndInstall();
    }
    if (++restarts_ > 2)
      return fail(QStringLiteral("The server at %1 refuses every byte range (HTTP 416).").arg(reply->url().host()),
                  true);
    resetPart();
    firstHop_ = true;
    return sendRequest(request_.url);
  }
  if (writing_ && reply->error() == QNetworkReply::NoError) {
    closePart();
    if (part_.total >= 0 && offset_ != part_.total) {
      savePartState();
      return retryOrFail(QStringLiteral("The connection to %1 closed after %2 of %3.")
                             .arg(reply->url().host(), formatBytes(offset_), formatBytes(part_.total)));
    }
    return verifyAndInstall();
  }
  closePart();
  savePartState();
  QNetworkReply::NetworkError error = reply->error();
  if (error == QNetworkReply::NoError && status != 200 && status != 206)
    error = QNetworkReply::ProtocolFailure;  // e.g. a 3xx without Location
  const QString why = describeFailure(error, status, reply->url(), reply->errorString());
  if (isTransient(error, status)) return retryOrFail(why);
  fail(why, false);
}

void DownloadTask::handleRedirect(const QUrl& from, const QUrl& to) {
  if (chain_.size() > options_.maxRedirects)
    return fail(QStringLiteral("The server redirected more than %1 times, starting at %2.")
                    .arg(options_.maxRedirects)
                    .arg(request_.url.toString()),
                false);
  if (chain_.contains(to)) {
    QStringList hops;
    for (const QUrl& u : chain_) hops << u.toString();
    hops << to.toString();
    return fail(QStringLiteral("The server redirects in a loop: %1.").arg(hops.join(QStringLiteral(" -> "))), false);
  }
  if (const QString why = checkRedirect(from, to); !why.isEmpty()) return fail(why, false);
  chain_ << to;
  firstHop_ = false;
  sendRequest(to);
}

void DownloadTask::retryOrFail(const QString& why) {
  if (retries_ >= options_.maxRetries) {
    const QString gaveUp = options_.maxRetries > 0 ? QStringLiteral(
                                                         " Gave up after %1 retries; the partial download "
                                                         "is kept, so the next try resumes.")
                                                         .arg(options_.maxRetries)
                                                   : QString();
    return fail(why + gaveUp, false);
  }
  const qint64 delay =
      std::min<qint64>(static_cast<qint64>(options_.initialBackoffMs) << std::min(retries_, 20), options_.maxBackoffMs);
  ++retries_;
  setState(State::Waiting,
           QStringLiteral("%1 Retrying in %2 (attempt %3 of %4).")
               .arg(why, delay < 1000 ? QStringLiteral("%1 ms").arg(delay) : formatDuration(delay / 1000))
               .arg(retries_ + 1)
               .arg(options_.maxRetries + 1));
  retryTimer_->start(static_cast<int>(delay));
}

void DownloadTask::verifyAndInstall() {
  const QString part = partPath(finalPath());
  QString expected = request_.expectedSha256;
  QString source = QStringLiteral("catalogue");
  if (expected.isEmpty()) {
    expected = part_.linkedSha256;
    source = QStringLiteral("x-linked-etag");
  }
  if (expected.isEmpty())
    return fail(QStringLiteral("%1 cannot be verified: the catalogue gives no SHA-256 and the server sent no "
                               "X-Linked-ETag. The file was not accepted and was deleted.")
                    .arg(request_.fileName),
                true);
  setState(State::Verifying, QStringLiteral("Checking the SHA-256 of %1.").arg(request_.fileName));
  // Twice (issue 9): the hash of the bytes as they streamed in, then the file as it is on disk, so what
  // gets accepted is what was received and what was written.
  const QString sourceName = source == QLatin1String("catalogue") ? QStringLiteral("the catalogue")
                                                                  : QStringLiteral("the server's X-Linked-ETag");
  const QString streamed = QString::fromLatin1(hash_.result().toHex());
  if (streamed != expected)
    return fail(QStringLiteral("The downloaded file for %1 is damaged or not the expected file: its SHA-256 is %2, but "
                               "%3 was expected (from %4). The file was deleted; try downloading again.")
                    .arg(request_.id, streamed, expected, sourceName),
                true);
  QString error;
  const QString onDisk = sha256OfFile(part, &error);
  if (onDisk.isEmpty())
    return fail(QStringLiteral("The downloaded file %1 cannot be checked: %2 It was deleted; try downloading again.")
                    .arg(part, asSentence(error)),
                true);
  if (onDisk != expected)
    return fail(QStringLiteral("The downloaded file %1 changed on disk before it could be accepted (its SHA-256 is "
                               "now %2). It was deleted; try downloading again.")
                    .arg(part, onDisk),
                true);
  if (options_.validate) {
    const QString invalid = options_.validate(part);
    if (!invalid.isEmpty())
      return fail(QStringLiteral("The downloaded file for %1 is not a model Trit can use: %2 It was deleted.")
                      .arg(request_.id, asSentence(invalid)),
                  true);
  }
  if (!makeRoomForInstall()) return;
  std::error_code ec;
  std::filesystem::rename(part.toStdString(), finalPath().toStdString(), ec);  // atomic within one folder
  if (ec)
    return fail(QStringLiteral("Cannot move the verified download into place as %1: %2.")
                    .arg(finalPath(), QString::fromStdString(ec.message())),
                false);
  VerifiedRecord record{request_.id, request_.url.toString(), expected, source, offset_};
  writeVerifiedRecord(recordPath(finalPath()), record, &error);
  QFile::remove(partStatePath(finalPath()));
  emitProgress(true);
  setState(State::Done, QStringLiteral("Verified against %1.").arg(sourceName));
  emit finished(true, finalPath(), source);
}

void DownloadTask::fail(const QString& why, bool removePart) {
  retryTimer_->stop();
  closePart();
  if (removePart) {
    QFile::remove(partPath(finalPath()));
    QFile::remove(partStatePath(finalPath()));
    resetPart();
  } else {
    savePartState();
  }
  setState(State::Failed, why);
  emit finished(false, why, {});
}

void DownloadTask::emitProgress(bool force) {
  if (!force && sinceProgress_.isValid() && sinceProgress_.elapsed() < options_.progressIntervalMs) return;
  sinceProgress_.start();
  const qint64 now = clock_.elapsed();
  samples_.emplace_back(now, offset_);
  while (samples_.size() > 2 && now - samples_.front().first > 5000) samples_.pop_front();
  DownloadProgress p;
  p.received = offset_;
  p.total = part_.total >= 0 ? part_.total : (request_.expectedSize > 0 ? request_.expectedSize : -1);
  if (p.total > 0) p.percent = 100.0 * static_cast<double>(offset_) / static_cast<double>(p.total);
  const auto& first = samples_.front();
  if (now > first.first && offset_ >= first.second)
    p.bytesPerSecond = 1000.0 * static_cast<double>(offset_ - first.second) / static_cast<double>(now - first.first);
  if (p.total > 0 && p.bytesPerSecond > 0)
    p.secondsLeft = std::llround(static_cast<double>(p.total - offset_) / p.bytesPerSecond);
  emit progress(p);
}

void DownloadTask::pause() {
  if (reply_ && (state_ == State::Connecting || state_ == State::Downloading || state_ == State::Stalled)) {
    stop_ = Stop::Pause;
    reply_->abort();  // finished() runs synchronously and records the pause
  } else if (state_ == State::Waiting) {
    retryTimer_->stop();
    closePart();
    savePartState();
    setState(State::Paused, QStringLiteral("Paused at %1.").arg(formatBytes(offset_)));
  }
}

void DownloadTask::resume() {
  if (state_ == State::Paused) {
    retries_ = 0;
    firstHop_ = true;
    sendRequest(request_.url);
  } else if (state_ == State::Idle || state_ == State::Failed || state_ == State::Cancelled) {
    start();
  }
}

void DownloadTask::cancel() {
  if (reply_) {
    stop_ = Stop::Cancel;
    reply_->abort();
    return;
  }
  if (retryTimer_) retryTimer_->stop();
  closePart();
  QFile::remove(partPath(finalPath()));
  QFile::remove(partStatePath(finalPath()));
  resetPart();
  setState(State::Cancelled, QStringLiteral("Cancelled; the partial file was removed."));
  emit finished(false, QStringLiteral("The download was cancelled."), {});
}

}  // namespace trit::models
