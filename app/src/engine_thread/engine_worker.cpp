#include "engine_thread/engine_worker.h"

#include <trit/devices.h>
#include <trit/model.h>
#include <trit/session.h>
#include <trit/tokenizer.h>
#include <QDir>
#include <QFileInfo>
#include <QLocale>

#include "chat/chat_messages.h"
#include "run_job.h"
#include "sentence.h"

namespace trit::chat {
namespace {

QString fromStd(const std::string& s) {
  return QString::fromUtf8(s.data(), static_cast<qsizetype>(s.size()));
}

QString bytesText(quint64 bytes) {
  return QLocale().formattedDataSize(static_cast<qint64>(bytes));
}

}  // namespace

EngineWorker::EngineWorker(StreamBuffer* stream, QObject* parent) : QObject(parent), stream_(stream) {}

EngineWorker::~EngineWorker() = default;

void EngineWorker::cancel(std::uint64_t id) {
  // Monotonic: a later cancel never un-cancels an earlier reply.
  std::uint64_t prev = cancelledId_.load();
  while (prev < id && !cancelledId_.compare_exchange_weak(prev, id)) {
  }
  std::lock_guard lock(activeMutex_);
  if (active_ && activeId_ <= id) active_->cancel();
}

std::shared_ptr<const server::ServedModel> EngineWorker::servedModel() const {
  std::lock_guard lock(servedMutex_);
  return served_;
}

int EngineWorker::servedContextLength() const {
  std::lock_guard lock(servedMutex_);
  return servedContext_;
}

void EngineWorker::publish(std::shared_ptr<const server::ServedModel> model, int context) {
  std::lock_guard lock(servedMutex_);
  served_ = std::move(model);
  // The last context stays while no model is loaded: a request that took the old model just before
  // then is checked against that model's context, and refused when its turn comes (runApiJob).
  if (served_) servedContext_ = context;
}

void EngineWorker::unload() {
  publish(nullptr, 0);
  {
    std::lock_guard lock(activeMutex_);
    active_ = nullptr;
  }
  format_.reset();
  if (!session_) return;
  session_.reset();
  emit modelUnloaded();
}

void EngineWorker::load(const LoadRequest& request) {
  unload();
  const QString path = request.path;
  try {
    const QFileInfo file(path);
    if (!file.exists()) {
      emit modelLoadFailed(path, tr("The model file %1 does not exist. Choose another file or download a model "
                                    "in the model manager.")
                                     .arg(QDir::toNativeSeparators(path)));
      return;
    }
    auto model = Model::open(file.absoluteFilePath().toStdString());
    SessionOptions options;
    options.backend = request.backend.toStdString();
    options.device = request.device;
    options.context = request.context;
    // Before the session is built: a template naming tokens the vocabulary lacks fails the load here.
    auto format = ChatFormat::for_model(*model);
    session_ = Session::create(model, options);
    format_ = format;  // a small trivially copyable value
    loaded_ = request;
    fileBytes_ = file.size();

    ModelInfo info;
    info.path = file.absoluteFilePath();
    const auto& config = session_->model().config();
    info.name = config.name.empty() ? file.completeBaseName() : fromStd(config.name);
    info.architecture = fromStd(config.architecture);
    info.backend = request.backend;
    info.contextLength = session_->context_length();
    info.layers = static_cast<int>(config.layers);
    info.dim = static_cast<int>(config.dim);
    info.vocab = static_cast<int>(config.vocab);
    info.fileBytes = fileBytes_;
    if (format_) info.chatFormat = fromStd(std::string(format_->name()));
    if (request.backend == QLatin1String("vulkan")) {
      const auto devices = list_vulkan_devices();
      DeviceChoice choice;
      choice.index = request.device;
      info.deviceName = fromStd(choose_device(devices, choice).name);
    } else {
      info.deviceName = tr("CPU (reference engine)");
    }
    info.memoryText = describeMemory();
    // Last: nothing above may fail once the API server can see the model.
    publish(std::make_shared<const server::ServedModel>(model, info.path.toStdString()), info.contextLength);
    emit modelLoaded(info);
  } catch (const ModelError& e) {
    format_.reset();
    session_.reset();
    emit modelLoadFailed(path, tr("The model could not be loaded: %1 Choose another model file, or download it "
                                  "again in the model manager.")
                                   .arg(asSentence(fromStd(e.what()))));
  } catch (const VulkanError& e) {
    format_.reset();
    session_.reset();
    emit modelLoadFailed(path, tr("The GPU could not be used: %1 In Settings, choose another device or the CPU "
                                  "engine.")
                                   .arg(asSentence(fromStd(e.what()))));
  } catch (const std::exception& e) {
    format_.reset();
    session_.reset();
    emit modelLoadFailed(path, tr("The model could not be loaded: %1").arg(fromStd(e.what())));
  }
}

QString EngineWorker::describeMemory() const {
  if (!session_) return {};
  if (loaded_.backend != QLatin1String("vulkan"))
    return tr("%1 of weights mapped in RAM").arg(bytesText(static_cast<quint64>(fileBytes_)));
  try {
    const auto devices = list_vulkan_devices();
    DeviceChoice choice;
    choice.index = loaded_.device;
    const auto& d = choose_device(devices, choice);
    if (d.memory_budget) {
      quint64 usage = 0, budget = 0;
      for (const auto& h : d.heaps)
        if (h.device_local) {
          usage += h.usage;
          budget += h.budget;
        }
      return tr("%1 of %2 GPU memory in use").arg(bytesText(usage), bytesText(budget));
    }
    return tr("%1 of weights on a device with %2")
        .arg(bytesText(static_cast<quint64>(fileBytes_)), bytesText(d.device_local_bytes()));
  } catch (const std::exception&) {
    return tr("%1 of weights").arg(bytesText(static_cast<quint64>(fileBytes_)));
  }
}

void EngineWorker::listDevices() {
  QStringList names;
  try {
    for (const auto& d : list_vulkan_devices())
      names << QStringLiteral("%1 (%2)").arg(fromStd(d.name), fromStd(d.type));
    emit devicesListed(names, {});
  } catch (const std::exception& e) {
    emit devicesListed(names, fromStd(e.what()));
  }
}

server::JobResult EngineWorker::runApiJob(server::Job& job) {
  server::JobResult result;
  result.prompt_tokens = static_cast<int32_t>(job.request().prompt.size());
  result.reason = FinishReason::Cancelled;
  if (!session_) {
    result.unavailable = "the model was unloaded in Trit's window before this request's turn came";
    return result;
  }
  // The job holds its model, so this address cannot belong to a newer model loaded in its place.
  if (job.request().model && job.request().model.get() != &session_->model()) {
    result.unavailable =
        "another model was loaded in Trit's window before this request's turn came; send it again "
        "to have the new model answer";
    return result;
  }
  // The chat's KV cache is replaced by this prompt; the chat's next turn reuses what prefix it can of it
  // (Session::prefill keeps the longest common prefix), so either side only loses speed, never tokens.
  return server::run_job(*session_, job);
}

void EngineWorker::generate(const GenerateRequest& request) {
  const std::uint64_t id = request.id;
  if (!session_) {
    emit replyFailed(id, tr("No model is loaded. Open a model first."));
    return;
  }
  ReplyOutcome outcome;
  outcome.id = id;
  outcome.contextLength = session_->context_length();
  if (cancelled(id)) {  // stopped while it waited in the queue
    outcome.reason = FinishReason::Cancelled;
    outcome.cachedTokens = static_cast<int>(session_->cached_tokens().size());
    emit replyFinished(outcome);
    return;
  }
  try {
    const std::vector<int32_t> prompt = promptIds(format_, session_->tokenizer(), request.systemPrompt, request.turns);
    stream_->begin(id);
    {
      std::lock_guard lock(activeMutex_);
      active_ = session_.get();
      activeId_ = id;
    }
    GenerateOptions options;
    options.sampling = request.sampling;
    options.max_tokens = request.maxTokens;
    if (format_) options.stop_tokens = format_->stop_tokens();
    bool first = true;
    // generate() clears the session's cancel flag when it starts, so a cancel that arrived just before
    // is re-applied from our own flag at the first callback (prefill reports progress before any work).
    options.on_prefill_progress = [&](int32_t done, int32_t total) {
      if (cancelled(id)) session_->cancel();
      emit prefillProgress(id, done, total);
    };
    options.on_text = [&](std::string_view piece) {
      if (cancelled(id)) session_->cancel();
      if (first) {
        first = false;
        emit replyStarted(id);
      }
      stream_->append(id, piece);
    };
    GenerateResult result;
    try {
      result = session_->generate(prompt, options);
    } catch (const PromptTooLongError& e) {
      // Not an engine failure: the controller explains it (by how much, and what to do).
      result.reason = FinishReason::ContextFull;
      result.stats.prompt_tokens = e.prompt_tokens();
      outcome.promptTooLong = true;
    }
    {
      std::lock_guard lock(activeMutex_);
      active_ = nullptr;
    }
    outcome.text = fromStd(result.text);
    outcome.tokens = std::move(result.tokens);
    outcome.reason = result.reason;
    outcome.stats = result.stats;
    outcome.cachedTokens = static_cast<int>(session_->cached_tokens().size());
    emit replyFinished(outcome);
    if (loaded_.backend == QLatin1String("vulkan")) emit memoryUsage(describeMemory());
  } catch (const std::exception& e) {
    {
      std::lock_guard lock(activeMutex_);
      active_ = nullptr;
    }
    emit replyFailed(id, tr("The engine stopped with an error: %1").arg(fromStd(e.what())));
  }
}

}  // namespace trit::chat
