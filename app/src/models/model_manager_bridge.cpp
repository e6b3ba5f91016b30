#include "model_manager_bridge.h"

#include <QDir>
#include <QEventLoop>
#include <QFile>
#include <QFileInfo>
#include <QQmlEngine>
#include <QSet>
#include <QTemporaryFile>
#include <QTimer>

#include "app_services.h"
#include "catalog_loader.h"
#include "part_state.h"

namespace trit::models {

namespace {

QString localPath(const QVariant& urlOrPath) {
  const QUrl url = urlOrPath.userType() == QMetaType::QUrl ? urlOrPath.toUrl() : QUrl(urlOrPath.toString());
  if (url.isLocalFile()) return url.toLocalFile();
  return urlOrPath.toString();
}

// Why `path` cannot be the models folder, or "" when it can: it must exist, be a folder, and take a new
// file (tried for real: permission bits say nothing for root, read-only mounts or ACLs).
QString folderProblem(const QString& path) {
  const QFileInfo fi(path);
  if (!fi.exists()) return ModelManagerBridge::tr("it does not exist");
  if (!fi.isDir()) return ModelManagerBridge::tr("it is a file, not a folder");
  QTemporaryFile probe(QDir(path).filePath(QStringLiteral(".trit-write-test-XXXXXX")));
  if (!probe.open()) return ModelManagerBridge::tr("Trit cannot write to it (%1)").arg(probe.errorString());
  return {};
}

}  // namespace

ModelManagerBridge::ModelManagerBridge(const QString& catalogLocation, const QString& modelsDir,
                                       DownloadOptions options, QObject* parent)
    : QObject(parent),
      catalogLocation_(models::catalogLocation(catalogLocation)),  // option, else $TRIT_CATALOG, else built in
      folder_(ModelsFolder::resolve(modelsDir), inspector_) {
  scanned_.folder = folder_.path();
  // A downloaded file is accepted only if the engine can open it, exactly like an import.
  if (!options.validate) options.validate = [](const QString& path) { return inspectModel(path).error; };
  downloads_ = std::make_unique<DownloadManager>(std::move(options));
  connect(downloads_.get(), &DownloadManager::progress, this, &ModelManagerBridge::onProgress);
  connect(downloads_.get(), &DownloadManager::stateChanged, this, &ModelManagerBridge::onState);
  connect(downloads_.get(), &DownloadManager::finished, this,
          [this](const QString& id, bool ok, const QString& result, const QString&) { onFinished(id, ok, result); });
  workerThread_.setObjectName(QStringLiteral("trit-models-worker"));
  workerContext_ = new QObject;
  workerContext_->moveToThread(&workerThread_);
  connect(&workerThread_, &QThread::finished, workerContext_, &QObject::deleteLater);
  workerThread_.start();
  connect(&gpu_, &GpuProbe::changed, this, &ModelManagerBridge::onGpuChanged);
}

ModelManagerBridge::~ModelManagerBridge() {
  downloads_.reset();  // pauses running downloads; their .part files stay for the next start
  // Jobs still running post their results to this object; once both threads are idle nothing else will,
  // and ~QObject drops what was posted but not yet delivered.
  workerThread_.quit();
  workerThread_.wait();
}

void ModelManagerBridge::setInspector(ModelInspector inspector) {
  inspector_ = std::move(inspector);
  folder_ = ModelsFolder(folder_.path(), inspector_);
}

void ModelManagerBridge::load() {
  QDir().mkpath(folder_.path());
  rebuild();
  requestScan([this] { loaded(); });  // installed models show up as soon as the scan is done
  fetchCatalog(catalogLocation_, this, [this](std::optional<Catalog> catalog, const QString& error) {
    if (catalog) {
      catalog_ = std::move(*catalog);
      catalogError_.clear();
    } else {
      catalogError_ = error;
      emit errorOccurred(error);
    }
    rebuild();
    loaded();
  });
}

void ModelManagerBridge::loaded() {
  if (loadsPending_ > 0 && --loadsPending_ == 0) emit ready();
}

void ModelManagerBridge::rescan() {
  requestScan();
}

void ModelManagerBridge::requestScan(std::function<void()> then) {
  if (++scansPending_ == 1) emit scanningChanged();
  const ModelsFolder folder = folder_;
  // Listing the folder and reading every header with the engine happen on the worker; the result is
  // posted back to this object's (the GUI) thread.
  QMetaObject::invokeMethod(
      workerContext_,
      [this, folder, then = std::move(then)]() mutable {
        FolderScan scan = scanModelsFolder(folder);
        QMetaObject::invokeMethod(
            this,
            [this, scan = std::move(scan), then = std::move(then)]() mutable {
              applyScan(std::move(scan));
              if (then) then();
              if (--scansPending_ == 0) emit scanningChanged();
              emit scanFinished();
            },
            Qt::QueuedConnection);
      },
      Qt::QueuedConnection);
}

void ModelManagerBridge::applyScan(FolderScan scan) {
  if (QDir(scan.folder) != QDir(folder_.path())) return;  // the folder was changed since: stale
  scanned_ = std::move(scan);
  scannedOnce_ = true;
  rebuild();
}

bool ModelManagerBridge::waitForFirstScan(int timeoutMs) {
  if (scannedOnce_) return true;
  QEventLoop loop;
  QTimer::singleShot(timeoutMs, &loop, &QEventLoop::quit);
  connect(this, &ModelManagerBridge::scanFinished, &loop, [this, &loop] {
    if (scannedOnce_) loop.quit();
  });
  loop.exec();
  return scannedOnce_;
}

void ModelManagerBridge::rebuild() {
  const QList<ModelInfo>& found = scanned_.models;
  QHash<QString, ModelInfo> byFile;
  for (const ModelInfo& info : found) byFile.insert(info.fileName, info);

  QList<ModelRow> rows;
  QSet<QString> catalogFiles;
  for (const CatalogEntry& e : catalog_.models) {
    ModelRow r = live_.value(e.id);
    r.id = e.id;
    r.inCatalog = true;
    r.entry = e;
    catalogFiles.insert(e.fileName);
    const auto it = byFile.constFind(e.fileName);
    r.installed = it != byFile.cend() && it->ok() && !r.downloading;
    r.info = it != byFile.cend() ? *it : ModelInfo{};
    if (it != byFile.cend() && !it->ok() && !r.downloading) r.error = it->error;
    // A .part left by an earlier run: shown as paused, resumed by resume().
    if (!r.installed && !r.downloading && !downloads_->isRunning(e.id)) {
      if (const qint64 part = scanned_.partials.value(e.fileName); part > 0) {
        r.paused = true;
        r.progress.received = part;
        r.progress.total = e.size > 0 ? e.size : -1;
        r.progress.percent = e.size > 0 ? 100.0 * double(part) / double(e.size) : -1;
      } else {
        r.paused = false;
      }
    }
    rows << r;
  }
  for (const ModelInfo& info : found) {
    if (catalogFiles.contains(info.fileName)) continue;
    ModelRow r;
    r.id = info.fileName;
    r.info = info;
    r.installed = info.ok();
    r.error = info.error;
    rows << r;
  }
  model_.setRows(std::move(rows));
  emit rowsChanged();
}

void ModelManagerBridge::changed(int row) {
  if (row < 0) return;
  emit rowsChanged();
}

QVariantMap ModelManagerBridge::recommendedModel() const {
  const bool gpuKnown = gpu_.memory().ok();
  for (int i = 0; i < model_.rowCount(); ++i) {
    if (!model_.rows()[i].inCatalog) continue;
    QVariantMap row = model_.toMap(i);
    if (!gpuKnown || row.value(QStringLiteral("fits")).toBool()) return row;
  }
  return {};
}

int ModelManagerBridge::installedCount() const {
  int n = 0;
  for (const ModelRow& r : model_.rows()) n += r.installed ? 1 : 0;
  return n;
}

// ---- the selected GPU ----

void ModelManagerBridge::setGpuFreeBytes(qint64 bytes) {
  gpu_.setFreeBytes(bytes);
}

void ModelManagerBridge::selectGpu(int device, int contextLength) {
  contextLength = std::max(contextLength, 0);
  const bool contextChanged = contextLength != context_;
  context_ = contextLength;
  model_.setContextLength(contextLength);
  const bool asked = gpu_.select(device);
  if (asked || contextChanged) {
    emit gpuChanged();
    if (contextChanged) emit rowsChanged();
  }
}

void ModelManagerBridge::onGpuChanged() {
  const GpuMemory& m = gpu_.memory();
  model_.setGpu(m.ok() ? m.freeBytes : -1, m.budget);
  emit gpuChanged();
  emit rowsChanged();
}

QString ModelManagerBridge::gpuSummary() const {
  const GpuMemory& gpu = gpu_.memory();
  if (!gpu.error.isEmpty()) return tr("GPU memory unknown: %1").arg(gpu.error);
  if (gpu.freeBytes < 0) return {};
  const QString name = gpu.deviceName.isEmpty() ? tr("The GPU") : gpu.deviceName;
  if (gpu.budget && gpu.totalBytes > 0)
    return tr("%1: %2 of %3 GPU memory free.").arg(name, formatBytes(gpu.freeBytes), formatBytes(gpu.totalBytes));
  return tr("%1: %2 GPU memory.").arg(name, formatBytes(gpu.freeBytes));
}

void ModelManagerBridge::refreshGpu() {
  gpu_.refresh();
}

// ---- requests from the dialog ----

QString ModelManagerBridge::pathOf(const QString& id) const {
  const int row = rowOf(id);
  return row >= 0 && model_.rows()[row].installed ? model_.rows()[row].info.path : QString();
}

void ModelManagerBridge::fail(const QString& message) {
  emit errorOccurred(message);
}

bool ModelManagerBridge::download(const QString& id, const QString& existing) {
  const CatalogEntry* e = catalog_.find(id);
  if (!e) {
    fail(tr("There is no model \"%1\" in the catalogue.").arg(id));
    return false;
  }
  QString error;
  const ExistingFile choice = existing == QLatin1String("replace")     ? ExistingFile::Replace
                              : existing == QLatin1String("keep-both") ? ExistingFile::KeepBoth
                                                                       : ExistingFile::Keep;
  const DownloadRequest request{e->id, e->url, e->sha256, e->size, folder_.path(), e->fileName, choice};
  if (!downloads_->start(request, &error)) {
    fail(error);
    return false;
  }
  ModelRow& live = live_[id];
  live.downloading = true;
  live.paused = false;
  live.error.clear();
  live.message.clear();
  live.progress.received = scanned_.partials.value(e->fileName);
  live.progress.total = e->size > 0 ? e->size : -1;
  rebuild();
  return true;
}

void ModelManagerBridge::pause(const QString& id) {
  if (downloads_->isRunning(id)) downloads_->pause(id);
}

void ModelManagerBridge::resume(const QString& id) {
  if (downloads_->isRunning(id)) {
    downloads_->resume(id);
    ModelRow& live = live_[id];
    live.paused = false;
    live.downloading = true;
    const int row = rowOf(id);
    if (row >= 0) {
      ModelRow r = model_.rows()[row];
      r.paused = false;
      r.downloading = true;
      model_.updateRow(row, r);
      changed(row);
    }
  } else {
    download(id);  // a .part from an earlier run: start() continues it with a Range request
  }
}

void ModelManagerBridge::cancel(const QString& id) {
  if (downloads_->isRunning(id)) {
    cancelling_.insert(id);
    downloads_->cancel(id);
    return;
  }
  // Nothing running: a .part left by an earlier run is removed here.
  if (const CatalogEntry* e = catalog_.find(id)) {
    const QString final = folder_.filePath(*e);
    QFile::remove(partPath(final));
    QFile::remove(partStatePath(final));
    scanned_.partials.remove(e->fileName);
  }
  live_.remove(id);
  rebuild();
}

void ModelManagerBridge::onProgress(const QString& id, const DownloadProgress& p) {
  ModelRow& live = live_[id];
  live.progress = p;
  const int row = rowOf(id);
  if (row < 0) return;
  ModelRow r = model_.rows()[row];
  r.progress = p;
  model_.updateRow(row, r);
  changed(row);
}

void ModelManagerBridge::onState(const QString& id, DownloadTask::State s, const QString& message) {
  ModelRow& live = live_[id];
  switch (s) {
    case DownloadTask::State::Paused:
      live.paused = true;
      live.downloading = false;
      break;
    case DownloadTask::State::Connecting:
    case DownloadTask::State::Downloading:
    case DownloadTask::State::Stalled:
    case DownloadTask::State::Waiting:
    case DownloadTask::State::Verifying:
      live.paused = false;
      live.downloading = true;
      break;
    case DownloadTask::State::Conflict:
      conflicted_.insert(id);
      break;
    default:  // Idle, Done, Failed, Cancelled: finished() follows and decides
      break;
  }
  live.message = message;
  const int row = rowOf(id);
  if (row < 0) return;
  ModelRow r = model_.rows()[row];
  r.paused = live.paused;
  r.downloading = live.downloading;
  r.message = message;
  model_.updateRow(row, r);
  changed(row);
}

void ModelManagerBridge::onFinished(const QString& id, bool ok, const QString& result) {
  const bool cancelled = cancelling_.remove(id);
  const bool conflict = conflicted_.remove(id);
  const CatalogEntry* e = catalog_.find(id);
  if (conflict) {
    // Not an error: the user's file was kept, and the dialog asks what to do with it.
    emit downloadConflict(id, e ? e->name : id, e ? e->fileName : id, result);
  } else if (!ok && !cancelled) {
    fail(tr("Cannot download %1: %2").arg(e ? e->name : id, result));
  }
  // The folder changed (a new model, or a part gone): the row keeps its download state until the rescan
  // shows the result, so it never flickers through a stale "available".
  requestScan([this, id, ok, cancelled, result] {
    if (ok || cancelled) {
      live_.remove(id);
    } else {
      ModelRow& live = live_[id];
      live.downloading = false;
      live.paused = false;
      live.error = result;
    }
    rebuild();
    emit downloadFinished(id, ok, ok ? result : (cancelled ? tr("The download was cancelled.") : result));
  });
}

void ModelManagerBridge::importFiles(const QVariantList& urls) {
  for (const QVariant& u : urls) importFile(u);
}

void ModelManagerBridge::importFile(const QVariant& urlOrPath) {
  const QString source = localPath(urlOrPath);
  if (source.isEmpty()) {
    fail(tr("Nothing to import: no file was given."));
    emit importFinished(false, tr("Nothing to import: no file was given."));
    return;
  }
  ++importing_;
  emit importingChanged();
  const ModelsFolder folder = folder_;
  // Validation opens the model with the engine and the copy may be large: both on the worker. The
  // rescan queued after it runs there too, so the new model is in the rows before importFinished.
  QMetaObject::invokeMethod(
      workerContext_,
      [this, folder, source] {
        QString error;
        const std::optional<ModelInfo> info = folder.importFile(source, &error);
        const QString result = info ? info->path : error;
        const bool ok = info.has_value();
        QMetaObject::invokeMethod(
            this,
            [this, ok, result] {
              requestScan([this, ok, result] {
                --importing_;
                emit importingChanged();
                if (!ok) emit errorOccurred(result);
                emit importFinished(ok, result);
              });
            },
            Qt::QueuedConnection);
      },
      Qt::QueuedConnection);
}

bool ModelManagerBridge::remove(const QString& idOrPath) {
  QString fileName;
  if (const CatalogEntry* e = catalog_.find(idOrPath)) {
    fileName = e->fileName;
  } else if (idOrPath.contains(QLatin1Char('/')) || QUrl(idOrPath).isLocalFile()) {
    const QFileInfo fi(localPath(idOrPath));
    if (QDir(fi.absolutePath()) != QDir(folder_.path())) {
      fail(tr("%1 is not in the models folder %2; Trit only removes models it keeps.")
               .arg(fi.filePath(), folder_.path()));
      return false;
    }
    fileName = fi.fileName();
  } else {
    fileName = idOrPath;
  }
  const int row = rowOf(idOrPath) >= 0 ? rowOf(idOrPath) : rowOf(fileName);
  if (row >= 0 && (model_.rows()[row].downloading || downloads_->isRunning(model_.rows()[row].id))) {
    fail(tr("%1 is being downloaded; cancel the download instead.").arg(displayName(model_.rows()[row])));
    return false;
  }
  const QString path = QDir(folder_.path()).filePath(fileName);
  QString error;
  // The dialog asked the user before calling: this is the confirmed removal.
  if (!folder_.remove(fileName, true, &error)) {
    fail(error);
    return false;
  }
  // The rows drop the file at once; a rescan confirms what else is (still) there.
  scanned_.models.removeIf([&](const ModelInfo& m) { return m.fileName == fileName; });
  scanned_.partials.remove(fileName);
  rebuild();
  emit removed(path);
  requestScan();
  return true;
}

bool ModelManagerBridge::setModelsDir(const QString& pathOrUrl) {
  const QString path = QDir::cleanPath(localPath(pathOrUrl).trimmed());
  QString problem;
  if (path.isEmpty() || path == QLatin1String("."))
    problem = tr("No models folder was given; the models folder stays %1.").arg(folder_.path());
  else if (!downloads_->running().isEmpty())
    problem = tr("Finish or cancel the running downloads before changing the models folder.");
  else if (const QString why = folderProblem(path); !why.isEmpty())
    problem = tr("Cannot use %1 as the models folder: %2. The models folder stays %3.").arg(path, why, folder_.path());
  if (!problem.isEmpty()) {
    modelsFolderError_ = problem;
    emit modelsFolderChanged();
    fail(problem);
    return false;
  }
  const QString absolute = QDir(path).absolutePath();
  ModelsFolder::saveSetting(absolute);
  modelsFolderError_.clear();
  folder_ = ModelsFolder(absolute, inspector_);
  scanned_ = FolderScan{absolute, {}, {}};
  live_.clear();
  rebuild();
  emit modelsFolderChanged();
  requestScan();
  return true;
}

ModelManagerBridge* exposeModelManager(QQmlEngine& engine, const QString& catalogOption,
                                       const QString& modelsDirOption) {
  auto* bridge = new ModelManagerBridge(catalogOption, modelsDirOption, DownloadOptions{}, &engine);
  app::AppServices::of(engine)->setModels(bridge);
  bridge->load();
  return bridge;
}

}  // namespace trit::models
