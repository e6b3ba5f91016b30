#include "models_cli.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QDir>
#include <QElapsedTimer>
#include <QFileInfo>
#include <cstdio>
#include <optional>

#include "models/catalog_loader.h"
#include "models/download_manager.h"
#include "models/model_inspector.h"
#include "models/model_manager_options.h"
#include "models/models_folder.h"
#include "models/part_state.h"

namespace trit::app {

using namespace trit::models;

namespace {

void out(const QString& line) {
  std::fputs(qPrintable(line + QLatin1Char('\n')), stdout);
  std::fflush(stdout);
}

void err(const QString& line) {
  std::fputs(qPrintable(QStringLiteral("trit: ") + line + QLatin1Char('\n')), stderr);
  std::fflush(stderr);
}

QString progressLine(const QString& id, const DownloadProgress& p) {
  QString line = id + QStringLiteral(": ");
  if (p.percent >= 0) line += QStringLiteral("%1% ").arg(p.percent, 0, 'f', 1);
  line += formatBytes(p.received);
  if (p.total > 0) line += QStringLiteral(" of ") + formatBytes(p.total);
  line += QStringLiteral(", %1/s").arg(formatBytes(static_cast<qint64>(p.bytesPerSecond)));
  if (p.secondsLeft >= 0) line += QStringLiteral(", %1 left").arg(formatDuration(p.secondsLeft));
  return line;
}

// "    llama architecture, 10.3 B parameters, I2_S weights, licence: NAME <URL>": what the model is. An
// installed file speaks for itself (its header, read by the engine); otherwise the catalogue does.
QString detailLine(const CatalogEntry* entry, const ModelInfo* info) {
  if (info && !info->ok()) return QStringLiteral("    not usable: %1").arg(info->error);
  const auto pick = [&](const QString& fromFile, const QString& fromCatalogue) {
    return info && !fromFile.isEmpty() ? fromFile : fromCatalogue;
  };
  const QString arch = pick(info ? info->architecture : QString(), entry ? entry->architecture : QString());
  const QString params = formatParameters(info && info->parameters > 0 ? info->parameters
                                          : entry                      ? entry->parameters
                                                                       : 0);
  const QString format = pick(info ? info->quantization : QString(), entry ? entry->quantization : QString());
  QStringList parts;
  parts << (arch.isEmpty() ? QStringLiteral("architecture unknown") : QStringLiteral("%1 architecture").arg(arch));
  parts << (params.isEmpty() ? QStringLiteral("parameters unknown") : QStringLiteral("%1 parameters").arg(params));
  parts << (format.isEmpty() ? QStringLiteral("weight format unknown") : QStringLiteral("%1 weights").arg(format));
  if (entry && !entry->license.isEmpty())
    parts << QStringLiteral("licence: %1").arg(entry->license) +
                 (entry->licenseUrl.isEmpty() ? QString() : QStringLiteral(" <%1>").arg(entry->licenseUrl));
  return QStringLiteral("    ") + parts.join(QStringLiteral(", "));
}

int listModels(const Catalog& catalog, const ModelsFolder& folder) {
  out(QStringLiteral("Catalogue: %1").arg(catalog.source));
  out(QStringLiteral("Models folder: %1").arg(folder.path()));
  QStringList known;
  for (const CatalogEntry& m : catalog.models) {
    known << m.fileName;
    QString state = QStringLiteral("not installed");
    std::optional<ModelInfo> info;
    if (folder.isInstalled(m)) {
      info = inspectModel(folder.filePath(m));
      const auto record = readVerifiedRecord(recordPath(folder.filePath(m)));
      state = record ? QStringLiteral("installed (verified by %1)").arg(record->verifiedBy)
                     : QStringLiteral("installed (not verified)");
    } else if (const qint64 part = folder.partialBytes(m); part > 0) {
      state = m.size > 0 ? QStringLiteral("partial %1% (resumable)")
                               .arg(100.0 * static_cast<double>(part) / static_cast<double>(m.size), 0, 'f', 1)
                         : QStringLiteral("partial %1 (resumable)").arg(formatBytes(part));
    }
    // The licence is on the detail line, with its URL.
    out(QStringLiteral("%1  %2  %3  %4")
            .arg(m.id, -28)
            .arg(m.name, -30)
            .arg(m.size > 0 ? formatBytes(m.size) : QStringLiteral("size unknown"), 12)
            .arg(state));
    out(detailLine(&m, info ? &*info : nullptr));
  }
  const QStringList others = QDir(folder.path()).entryList({QStringLiteral("*.gguf")}, QDir::Files, QDir::Name);
  for (const QString& f : others) {
    if (known.contains(f)) continue;
    const QString path = QDir(folder.path()).filePath(f);
    out(QStringLiteral("%1  %2  %3  installed (imported, not in the catalogue)")
            .arg(f, -28)
            .arg(QString(), -30)
            .arg(formatBytes(QFileInfo(path).size()), 12));
    const ModelInfo info = inspectModel(path);
    out(detailLine(nullptr, &info));
  }
  return 0;
}

int download(const CatalogEntry& entry, const ModelsFolder& folder, const DownloadOptions& options,
             ExistingFile existing) {
  DownloadManager manager(options);
  int code = 1;
  QElapsedTimer sinceLine;
  double lastPercent = -100;
  QObject::connect(&manager, &DownloadManager::progress, [&](const QString& id, const DownloadProgress& p) {
    // One line a second at most (or every 10%), so logs of slow downloads stay readable.
    if (sinceLine.isValid() && sinceLine.elapsed() < 1000 && p.percent - lastPercent < 10 && p.percent < 100) return;
    sinceLine.start();
    lastPercent = p.percent;
    out(progressLine(id, p));
  });
  bool conflict = false;
  QObject::connect(&manager, &DownloadManager::stateChanged,
                   [&](const QString& id, DownloadTask::State s, const QString& message) {
                     conflict = s == DownloadTask::State::Conflict;
                     if (!message.isEmpty() && s != DownloadTask::State::Failed && !conflict)
                       out(id + QStringLiteral(": ") + message);
                   });
  QObject::connect(&manager, &DownloadManager::finished,
                   [&](const QString& id, bool ok, const QString& result, const QString& by) {
                     if (ok) {
                       out(QStringLiteral("%1: done: %2 (SHA-256 verified by %3)").arg(id, result, by));
                       code = 0;
                     } else {
                       // The other file is the user's: they choose, on the command line.
                       const QString choice = conflict ? QStringLiteral(
                                                             " Run again with --replace to replace it, or "
                                                             "with --keep-both to keep it under another name.")
                                                       : QString();
                       err(QStringLiteral("cannot download %1: %2%3").arg(id, result, choice));
                     }
                     QCoreApplication::exit(code);
                   });
  DownloadRequest request{entry.id, entry.url, entry.sha256, entry.size, folder.path(), entry.fileName, existing};
  QString error;
  if (!manager.start(request, &error)) {
    err(error);
    return 1;
  }
  QCoreApplication::exec();
  return code;
}

}  // namespace

QList<QCommandLineOption> modelsCommandOptions() {
  return {
      {QStringLiteral("download"), QStringLiteral("Download the catalogue model ID into the models folder and exit."),
       QStringLiteral("ID")},
      {QStringLiteral("list-models"), QStringLiteral("List the catalogue with each model's installed state and exit.")},
      {QStringLiteral("stall-timeout"),
       QStringLiteral("With --download: seconds without data before a transfer counts as stalled (default 30)."),
       QStringLiteral("SECONDS")},
      {QStringLiteral("retries"),
       QStringLiteral("With --download: retries after a dropped, stalled or refused connection (default 5)."),
       QStringLiteral("N")},
      {QStringLiteral("retry-delay"),
       QStringLiteral("With --download: seconds before the first retry, doubled each time (default 1)."),
       QStringLiteral("SECONDS")},
      {QStringLiteral("replace"),
       QStringLiteral("With --download: replace a different file of the same name in the models folder (by "
                      "default it is kept and nothing is downloaded).")},
      {QStringLiteral("keep-both"),
       QStringLiteral("With --download: keep a different file of the same name as \"NAME (2).gguf\".")},
  };
}

int runModelsCommand(const QCommandLineParser& parser) {
  const QCommandLineOption stallOpt(QStringLiteral("stall-timeout"));
  const QCommandLineOption retriesOpt(QStringLiteral("retries"));
  const QCommandLineOption backoffOpt(QStringLiteral("retry-delay"));
  if (parser.isSet(QStringLiteral("replace")) && parser.isSet(QStringLiteral("keep-both"))) {
    err(QStringLiteral("--replace and --keep-both cannot be combined: choose one."));
    return 2;
  }
  DownloadOptions options;
  bool ok = true;
  if (parser.isSet(stallOpt)) {
    const double s = parser.value(stallOpt).toDouble(&ok);
    if (!ok || s <= 0 || s > 3600)
      return err(QStringLiteral("--stall-timeout wants seconds between 0 and 3600, got \"%1\".")
                     .arg(parser.value(stallOpt))),
             2;
    options.stallTimeoutMs = static_cast<int>(s * 1000);
  }
  if (parser.isSet(retriesOpt)) {
    options.maxRetries = parser.value(retriesOpt).toInt(&ok);
    if (!ok || options.maxRetries < 0 || options.maxRetries > 100)
      return err(QStringLiteral("--retries wants a number from 0 to 100, got \"%1\".").arg(parser.value(retriesOpt))),
             2;
  }
  if (parser.isSet(backoffOpt)) {
    const double s = parser.value(backoffOpt).toDouble(&ok);
    if (!ok || s < 0 || s > 600)
      return err(QStringLiteral("--retry-delay wants seconds between 0 and 600, got \"%1\".")
                     .arg(parser.value(backoffOpt))),
             2;
    options.initialBackoffMs = static_cast<int>(s * 1000);
  }
  options.validate = [](const QString& path) { return inspectModel(path).error; };

  QString error;
  const QString location = catalogLocation(parser.value(catalogOption()));
  const auto catalog = loadCatalog(location, &error);
  if (!catalog) {
    err(error);
    return 2;
  }
  const ModelsFolder folder(ModelsFolder::resolve(parser.value(modelsDirOption())));
  if (parser.isSet(QStringLiteral("list-models"))) return listModels(*catalog, folder);

  const QString id = parser.value(QStringLiteral("download"));
  const CatalogEntry* entry = catalog->find(id);
  if (!entry) {
    QStringList ids;
    for (const auto& m : catalog->models) ids << m.id;
    err(QStringLiteral("the catalogue %1 has no model \"%2\"; it lists: %3.")
            .arg(catalog->source, id, ids.isEmpty() ? QStringLiteral("nothing") : ids.join(QStringLiteral(", "))));
    return 2;
  }
  const ExistingFile existing = parser.isSet(QStringLiteral("replace"))     ? ExistingFile::Replace
                                : parser.isSet(QStringLiteral("keep-both")) ? ExistingFile::KeepBoth
                                                                            : ExistingFile::Keep;
  return download(*entry, folder, options, existing);
}

}  // namespace trit::app
