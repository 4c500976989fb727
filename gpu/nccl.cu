#include "gpu/nccl.hpp"

#include <dlfcn.h>

#include <stdexcept>

#include "common/cuda_check.hpp"

namespace tb::gpu::nccl {
namespace {

template <class Fn>
bool find_symbol(void* lib, const char* name, Fn& fn, std::string& error) {
  fn = reinterpret_cast<Fn>(dlsym(lib, name));
  if (!fn) error = std::string("NCCL has no ") + name;
  return fn != nullptr;
}

bool find_all(void* lib, Api& a) {
  return find_symbol(lib, "ncclGetVersion", a.get_version, a.error) &&
         find_symbol(lib, "ncclGetErrorString", a.error_string, a.error) &&
         find_symbol(lib, "ncclCommInitAll", a.comm_init_all, a.error) &&
         find_symbol(lib, "ncclGetUniqueId", a.get_unique_id, a.error) &&
         find_symbol(lib, "ncclCommInitRank", a.comm_init_rank, a.error) &&
         find_symbol(lib, "ncclCommDestroy", a.comm_destroy, a.error) &&
         find_symbol(lib, "ncclGroupStart", a.group_start, a.error) &&
         find_symbol(lib, "ncclGroupEnd", a.group_end, a.error) &&
         find_symbol(lib, "ncclAllReduce", a.all_reduce, a.error) &&
         find_symbol(lib, "ncclAllGather", a.all_gather, a.error) &&
         find_symbol(lib, "ncclReduceScatter", a.reduce_scatter, a.error) &&
         find_symbol(lib, "ncclBroadcast", a.broadcast, a.error) &&
         find_symbol(lib, "ncclSend", a.send, a.error) &&
         find_symbol(lib, "ncclRecv", a.recv, a.error);
}

}  // namespace

Api load(const std::vector<std::string>& names) {
  std::string tried;
  for (const std::string& name : names) {
    void* lib = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL);  // never closed: comms outlive main
    if (!lib) {
      const char* why = dlerror();
      tried += (tried.empty() ? "" : "; ") + std::string(why ? why : name);
      continue;
    }
    Api a;
    a.library = name;
    if (!find_all(lib, a)) {
      tried += (tried.empty() ? "" : "; ") + name + ": " + a.error;
      continue;
    }
    a.error.clear();
    if (a.get_version(&a.version) != 0) a.version = 0;
    return a;
  }
  Api none;
  none.error = "NCCL not available: " + (tried.empty() ? std::string("no library named") : tried);
  return none;
}

const Api& api() {
  static const Api a = load({"libnccl.so.2", "/usr/local/cuda/lib/libnccl.so.2",
                             "/usr/local/cuda/lib64/libnccl.so.2"});
  return a;
}

void check(Result r, const char* what) {
  if (r == 0) return;
  const char* msg = api().error_string ? api().error_string(r) : "unknown error";
  throw std::runtime_error(std::string("NCCL: ") + what + ": " + msg + " (ncclResult " +
                           std::to_string(r) + ")");
}

UniqueId unique_id() {
  if (!api().ok()) throw std::runtime_error(api().error);
  UniqueId id{};
  check(api().get_unique_id(&id), "ncclGetUniqueId");
  return id;
}

Comms::Comms(const std::vector<int>& devices)
    : comms_(devices.size(), nullptr), total_ranks_(static_cast<int>(devices.size())) {
  if (!api().ok()) throw std::runtime_error(api().error);
  check(api().comm_init_all(comms_.data(), total_ranks_, devices.data()), "ncclCommInitAll");
}

Comms::Comms(const UniqueId& id, int rank, int total_ranks)
    : comms_(1, nullptr), first_rank_(rank), total_ranks_(total_ranks) {
  if (!api().ok()) throw std::runtime_error(api().error);
  check(api().comm_init_rank(&comms_[0], total_ranks, id, rank), "ncclCommInitRank");
}

Comms::~Comms() {
  for (Comm c : comms_)
    if (c) api().comm_destroy(c);
}

}  // namespace tb::gpu::nccl
