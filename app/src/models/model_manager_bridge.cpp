#include "model_manager_bridge.h"

#include <QDir>
#include <QEventLoop>
#include <QTimer>
#include <QFile>
#include <QFileInfo>
#include <QQmlContext>
#include <QQmlEngine>
#include <QSet>
#include <QTemporaryFile>

#include "catalog_loader.h"
#include "part_state.h"

namespace trit::models {

// ---- ModelListModel ------------------------------------------------------------------------------

int ModelListModel::rowCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : int(rows_.size()); }

QHash<int, QByteArray> ModelListModel::roleNames() const {
  return {{IdRole, "id"}, {NameRole, "name"}, {DescriptionRole, "description"}, {SizeRole, "size"},
          {LicenseRole, "license"}, {InstalledRole, "installed"}, {PathRole, "path"},
          {DownloadingRole, "downloading"}, {PausedRole, "paused"}, {BytesReceivedRole, "bytesReceived"},
          {BytesTotalRole, "bytesTotal"}, {PercentRole, "percent"}, {SpeedRole, "speedBytesPerSec"},
          {SecondsLeftRole, "secondsLeft"}, {ErrorRole, "error"}, {MemoryNeededRole, "memoryNeeded"},
          {FitsGpuRole, "fitsGpu"}, {StateRole, "state"}, {QuantizationRole, "quantization"},
          {ContextLengthRole, "contextLength"}, {InCatalogRole, "inCatalog"}, {ArchitectureRole, "architecture"},
          {ParametersRole, "parameters"}, {LicenseUrlRole, "licenseUrl"}, {ModelDataRole, "modelData"}};
}

namespace {

QString stateName(const ModelRow& r) {
  if (r.installed) return QStringLiteral("installed");
  if (r.downloading) return QStringLiteral("downloading");
  if (r.paused) return QStringLiteral("paused");
  if (!r.error.isEmpty()) return QStringLiteral("failed");
  return QStringLiteral("available");
}

QString displayName(const ModelRow& r) {
  if (r.inCatalog) return r.entry.name;
  return r.info.name.isEmpty() ? r.id : r.info.name;
}

// The installed file's own count when it could be read, else the catalogue's (0: unknown).
qint64 parametersOf(const ModelRow& r) {
  return r.installed && r.info.parameters > 0 ? r.info.parameters : r.entry.parameters;
}

qint64 sizeOf(const ModelRow& r) {
  if (r.installed) return r.info.fileSize;
  return r.inCatalog ? r.entry.size : r.info.fileSize;
}

// The parts of a download's progress, each "" while unknown: "4.20 MiB of 10.0 MiB", "1.00 MiB/s",
// "6 s left". The model manager's cards show them side by side.
QString receivedText(const DownloadProgress& p) {
  return p.total > 0 ? ModelListModel::tr("%1 of %2").arg(formatBytes(p.received), formatBytes(p.total))
                     : formatBytes(p.received);
}
QString speedText(const DownloadProgress& p) {
  return p.bytesPerSecond > 0 ? ModelListModel::tr("%1/s").arg(formatBytes(qint64(p.bytesPerSecond))) : QString();
}
QString timeLeftText(const DownloadProgress& p) {
  return p.secondsLeft >= 0 ? ModelListModel::tr("%1 left").arg(formatDuration(p.secondsLeft)) : QString();
}

// "42.0% · 4.20 MiB of 10.0 MiB · 1.00 MiB/s · 6 s left": the same parts in one line (the first run).
QString progressText(const DownloadProgress& p) {
  QStringList parts;
  if (p.percent >= 0) parts << QStringLiteral("%1%").arg(p.percent, 0, 'f', 1);
  parts << receivedText(p) << speedText(p) << timeLeftText(p);
  parts.removeAll(QString());
  return parts.join(QStringLiteral(" · "));
}

}  // namespace

qint64 ModelListModel::memoryNeeded(const ModelRow& r) const {
  // An installed file is judged by its own header at the configured context; a catalogue entry not yet
  // downloaded by the catalogue's "memory" figure.
  if (r.installed && r.info.weightBytes > 0) return memoryNeededAt(r.info, context_);
  return r.inCatalog ? r.entry.memory : memoryNeededAt(r.info, context_);
}

QVariant ModelListModel::fits(const ModelRow& r) const {
  const qint64 need = memoryNeeded(r);
  if (gpuFreeBytes_ < 0 || need <= 0) return {};
  return fitsGpu(need, gpuFreeBytes_);
}

QString ModelListModel::fitText(const ModelRow& r) const {
  const QVariant f = fits(r);
  if (!f.isValid()) return {};
  const QString need = formatBytes(memoryNeeded(r)), have = formatBytes(gpuFreeBytes_);
  if (f.toBool())
    return gpuBudget_ ? tr("fits (needs %1 of %2 free)").arg(need, have)
                      : tr("fits (needs %1 of %2 on the GPU)").arg(need, have);
  return gpuBudget_ ? tr("does not fit (needs %1, only %2 free)").arg(need, have)
                    : tr("does not fit (needs %1, the GPU has %2)").arg(need, have);
}

QVariant ModelListModel::data(const QModelIndex& index, int role) const {
  if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid)) return {};
  const ModelRow& r = rows_[index.row()];
  switch (role) {
    case Qt::DisplayRole:
    case NameRole: return displayName(r);
    case IdRole: return r.id;
    case DescriptionRole: return r.inCatalog ? r.entry.description : QString();
    case SizeRole: return sizeOf(r);
    case LicenseRole: return r.inCatalog ? r.entry.license : QString();
    case InstalledRole: return r.installed;
    case PathRole: return r.installed ? r.info.path : QString();
    case DownloadingRole: return r.downloading;
    case PausedRole: return r.paused;
    case BytesReceivedRole: return r.progress.received;
    case BytesTotalRole: return r.progress.total;
    case PercentRole: return r.progress.percent;
    case SpeedRole: return r.progress.bytesPerSecond;
    case SecondsLeftRole: return r.progress.secondsLeft;
    case ErrorRole: return r.error;
    case MemoryNeededRole: return memoryNeeded(r);
    case FitsGpuRole: return fits(r);
    case StateRole: return stateName(r);
    case QuantizationRole: return r.installed && !r.info.quantization.isEmpty() ? r.info.quantization : r.entry.quantization;
    case ArchitectureRole: return r.installed && !r.info.architecture.isEmpty() ? r.info.architecture : r.entry.architecture;
    case ParametersRole: return parametersOf(r);
    case LicenseUrlRole: return r.inCatalog ? r.entry.licenseUrl : QString();
    case ContextLengthRole: return r.installed && r.info.contextLength > 0 ? r.info.contextLength : r.entry.contextLength;
    case InCatalogRole: return r.inCatalog;
    case ModelDataRole: return toMap(index.row());
    default: return {};
  }
}

QVariantMap ModelListModel::toMap(int row) const {
  QVariantMap m;
  const QModelIndex i = index(row);
  const auto roles = roleNames();
  for (auto it = roles.begin(); it != roles.end(); ++it)
    if (it.key() != ModelDataRole) m.insert(QString::fromLatin1(it.value()), data(i, it.key()));
  const ModelRow& r = rows_[row];
  const qint64 size = sizeOf(r);
  m.insert(QStringLiteral("sizeText"), size > 0 ? formatBytes(size) : QString());
  m.insert(QStringLiteral("parametersText"), formatParameters(parametersOf(r)));
  const bool transferring = r.downloading || r.paused;
  m.insert(QStringLiteral("progressText"), transferring ? progressText(r.progress) : QString());
  m.insert(QStringLiteral("receivedText"), transferring ? receivedText(r.progress) : QString());
  m.insert(QStringLiteral("speedText"), r.downloading ? speedText(r.progress) : QString());
  m.insert(QStringLiteral("timeLeftText"), r.downloading ? timeLeftText(r.progress) : QString());
  m.insert(QStringLiteral("message"), !r.error.isEmpty() ? r.error : r.message);
  m.insert(QStringLiteral("fits"), fits(r));
  m.insert(QStringLiteral("fitText"), fitText(r));
  return m;
}

void ModelListModel::setRows(QList<ModelRow> rows) {
  beginResetModel();
  rows_ = std::move(rows);
  endResetModel();
}

void ModelListModel::updateRow(int row, const ModelRow& r) {
  if (row < 0 || row >= rows_.size()) return;
  rows_[row] = r;
  emit dataChanged(index(row), index(row));
}

int ModelListModel::indexOf(const QString& id) const {
  for (int i = 0; i < rows_.size(); ++i)
    if (rows_[i].id == id) return i;
  return -1;
}

void ModelListModel::allChanged(const QList<int>& roles) {
  if (!rows_.isEmpty()) emit dataChanged(index(0), index(int(rows_.size()) - 1), roles);
}

void ModelListModel::setGpu(qint64 freeBytes, bool budget) {
  if (freeBytes == gpuFreeBytes_ && budget == gpuBudget_) return;
  gpuFreeBytes_ = freeBytes;
  gpuBudget_ = budget;
  allChanged({FitsGpuRole, ModelDataRole});
}

void ModelListModel::setContextLength(int context) {
  if (context == context_) return;
  context_ = context;
  allChanged({MemoryNeededRole, FitsGpuRole, ModelDataRole});
}

// ---- ModelManagerBridge --------------------------------------------------------------------------

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

FolderScan scanModelsFolder(const ModelsFolder& folder) {
  FolderScan s;
  s.folder = folder.path();
  s.models = folder.scan();
  const QDir dir(folder.path());
  const QString suffix = QStringLiteral(".part");
  for (const QFileInfo& part : dir.entryInfoList({QStringLiteral("*.gguf.part")}, QDir::Files, QDir::Name))
    s.partials.insert(part.fileName().chopped(suffix.size()), part.size());
  return s;
}

ModelManagerBridge::ModelManagerBridge(QString catalogLocation, QString modelsDir, DownloadOptions options,
                                       QObject* parent)
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
  gpuPool_.setMaxThreadCount(1);
}

ModelManagerBridge::~ModelManagerBridge() {
  downloads_.reset();  // pauses running downloads; their .part files stay for the next start
  // Jobs still running post their results to this object; once both threads are idle nothing else will,
  // and ~QObject drops what was posted but not yet delivered.
  workerThread_.quit();
  workerThread_.wait();
  gpuPool_.waitForDone();
}

void ModelManagerBridge::setInspector(ModelInspector inspector) {
  inspector_ = std::move(inspector);
  folder_ = ModelsFolder(folder_.path(), inspector_);
}

void ModelManagerBridge::load() {
  QDir().mkpath(folder_.path());
  rebuild();
  requestScan([this] { loaded(); });  // installed models show up as soon as the scan is done
  fetchCatalog(catalogLocation_, this, [this](std::optional<Catalog> catalog, QString error) {
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

void ModelManagerBridge::rescan() { requestScan(); }

void ModelManagerBridge::requestScan(std::function<void()> then) {
  if (++scansPending_ == 1) emit scanningChanged();
  const ModelsFolder folder = folder_;
  // Listing the folder and reading every header with the engine happen on the worker; the result is
  // posted back to this object's (the GUI) thread.
  QMetaObject::invokeMethod(workerContext_, [this, folder, then = std::move(then)]() mutable {
    FolderScan scan = scanModelsFolder(folder);
    QMetaObject::invokeMethod(this, [this, scan = std::move(scan), then = std::move(then)]() mutable {
      applyScan(std::move(scan));
      if (then) then();
      if (--scansPending_ == 0) emit scanningChanged();
      emit scanFinished();
    }, Qt::QueuedConnection);
  }, Qt::QueuedConnection);
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
  emit entriesChanged();
}

void ModelManagerBridge::changed(int row) {
  if (row < 0) return;
  emit entriesChanged();
}

QVariantList ModelManagerBridge::entries() const {
  QVariantList out;
  for (int i = 0; i < model_.rowCount(); ++i) out << model_.toMap(i);
  return out;
}

QVariantList ModelManagerBridge::installedModels() const {
  QVariantList out;
  for (const ModelRow& r : model_.rows()) {
    if (!r.installed) continue;
    out << QVariantMap{{QStringLiteral("id"), r.id},
                       {QStringLiteral("name"), displayName(r)},
                       {QStringLiteral("path"), r.info.path},
                       {QStringLiteral("fileName"), r.info.fileName},
                       {QStringLiteral("size"), r.info.fileSize},
                       {QStringLiteral("quantization"), r.info.quantization},
                       {QStringLiteral("contextLength"), r.info.contextLength}};
  }
  return out;
}

QVariantMap ModelManagerBridge::recommendedModel() const {
  const bool gpuKnown = gpu_.ok();
  for (int i = 0; i < model_.rowCount(); ++i) {
    if (!model_.rows()[i].inCatalog) continue;
    const QVariantMap row = model_.toMap(i);
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
  ++gpuGeneration_;  // a probe still running must not overwrite the given figure
  GpuMemory m;
  m.freeBytes = bytes;
  m.budget = true;
  gpu_ = m;
  model_.setGpu(bytes, true);
  emit gpuChanged();
  emit entriesChanged();
}

void ModelManagerBridge::selectGpu(int device, int contextLength) {
  device = std::max(device, -1);
  contextLength = std::max(contextLength, 0);
  const bool ask = device != gpuDevice_ || !gpuAsked_;
  const bool contextChanged = contextLength != context_;
  gpuDevice_ = device;
  context_ = contextLength;
  model_.setContextLength(contextLength);
  if (ask) startGpuProbe();
  if (ask || contextChanged) {
    emit gpuChanged();
    if (contextChanged) emit entriesChanged();
  }
}

QString ModelManagerBridge::gpuSummary() const {
  if (!gpu_.error.isEmpty()) return tr("GPU memory unknown: %1").arg(gpu_.error);
  if (gpu_.freeBytes < 0) return {};
  const QString name = gpu_.deviceName.isEmpty() ? tr("The GPU") : gpu_.deviceName;
  if (gpu_.budget && gpu_.totalBytes > 0)
    return tr("%1: %2 of %3 GPU memory free.").arg(name, formatBytes(gpu_.freeBytes), formatBytes(gpu_.totalBytes));
  return tr("%1: %2 GPU memory.").arg(name, formatBytes(gpu_.freeBytes));
}

void ModelManagerBridge::refreshGpu() { startGpuProbe(); }

void ModelManagerBridge::startGpuProbe() {
  gpuAsked_ = true;
  const quint64 generation = ++gpuGeneration_;
  const int device = gpuDevice_;
  gpuPool_.start([this, generation, device, probe = probe_] {
    const GpuMemory m = probe(device);
    QMetaObject::invokeMethod(this, [this, generation, m] {
      if (generation != gpuGeneration_) return;  // the device was changed meanwhile
      gpu_ = m;
      model_.setGpu(m.ok() ? m.freeBytes : -1, m.budget);
      emit gpuChanged();
      emit entriesChanged();
    }, Qt::QueuedConnection);
  });
}

// ---- requests from the dialog ----

QString ModelManagerBridge::pathOf(const QString& id) const {
  const int row = rowOf(id);
  return row >= 0 && model_.rows()[row].installed ? model_.rows()[row].info.path : QString();
}

void ModelManagerBridge::fail(const QString& message) { emit errorOccurred(message); }

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
  QMetaObject::invokeMethod(workerContext_, [this, folder, source] {
    QString error;
    const std::optional<ModelInfo> info = folder.importFile(source, &error);
    const QString result = info ? info->path : error;
    const bool ok = info.has_value();
    QMetaObject::invokeMethod(this, [this, ok, result] {
      requestScan([this, ok, result] {
        --importing_;
        emit importingChanged();
        if (!ok) emit errorOccurred(result);
        emit importFinished(ok, result);
      });
    }, Qt::QueuedConnection);
  }, Qt::QueuedConnection);
}

bool ModelManagerBridge::remove(const QString& idOrPath) {
  QString fileName;
  if (const CatalogEntry* e = catalog_.find(idOrPath)) {
    fileName = e->fileName;
  } else if (idOrPath.contains(QLatin1Char('/')) || QUrl(idOrPath).isLocalFile()) {
    const QFileInfo fi(localPath(idOrPath));
    if (QDir(fi.absolutePath()) != QDir(folder_.path())) {
      fail(tr("%1 is not in the models folder %2; Trit only removes models it keeps.").arg(fi.filePath(), folder_.path()));
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
  engine.rootContext()->setContextProperty(QStringLiteral("tritModels"), bridge);
  bridge->load();
  return bridge;
}

}  // namespace trit::models
