// Owns the sa_store entry points of the C ABI: argument checks and translation to store::Store,
// store::verify, the stream calls and receivers, nothing more. Arrays and graphs taken from a store are views
// whose handles share ownership of the store, so they outlive sa_store_close.
#include <cstddef>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "capi/guard.hpp"
#include "capi/handles.hpp"
#include "capi/options.hpp"
#include "smartarrays.h"
#include "smartarrays/store/store.hpp"

// The opaque handle: an open store, shared with the handles of its arrays and graphs.
struct sa_store {
  std::shared_ptr<const smartarrays::store::Store> store;
  std::vector<std::string> names;
};

// The opaque handle of a receiver.
struct sa_receiver {
  smartarrays::store::Receiver receiver;
};

namespace {

namespace store = smartarrays::store;
using smartarrays::ArrayOptions;
using smartarrays::ErrorCode;
using smartarrays::throw_error;
using smartarrays::capi::guarded;
using smartarrays::capi::require;

static_assert(offsetof(sa_store_object, name) == 0 && offsetof(sa_store_object, array) == 8 &&
              offsetof(sa_store_object, graph) == 16 && sizeof(sa_store_object) == 24);
static_assert(sizeof(sa_store_mode) == 4 && sizeof(sa_store_object_kind) == 4);
static_assert(SA_STORE_ARRAY == static_cast<int>(store::ObjectKind::array) &&
              SA_STORE_GRAPH == static_cast<int>(store::ObjectKind::graph));

// The objects of a C list, checked for NULLs.
std::vector<store::Object> objects_of(const sa_store_object* objects, std::uint64_t n) {
  if (n > 0) require(objects, "objects (with n > 0)");
  std::vector<store::Object> list;
  for (std::uint64_t i = 0; i < n; ++i) {
    const sa_store_object& o = objects[i];
    const std::string which = "objects[" + std::to_string(i) + "]";
    require(o.name, (which + ".name").c_str());
    if ((o.array == nullptr) == (o.graph == nullptr)) {
      throw_error(ErrorCode::invalid_argument, which + " must have exactly one of array and graph");
    }
    if (o.array != nullptr) {
      list.emplace_back(o.name, *o.array->array);
    } else {
      list.emplace_back(o.name, *o.graph->graph);
    }
  }
  return list;
}

ArrayOptions placement_of(const sa_options* o) {
  const ArrayOptions options = smartarrays::capi::to_array_options(o, "placement->");
  if (options.bits != 0) {
    throw_error(ErrorCode::invalid_argument,
                "placement->bits is " + std::to_string(options.bits) + "; a store's arrays keep their stored widths");
  }
  return options;
}

sa_store* handle_of(store::Store opened) {
  auto shared = std::make_shared<const store::Store>(std::move(opened));
  std::vector<std::string> names = shared->names();
  return new sa_store{std::move(shared), std::move(names)};
}

const store::Store& store_of(const sa_store* s) {
  require(s, "s");
  return *s->store;
}

}  // namespace

extern "C" {

sa_status sa_store_write(const char* path, const sa_store_object* objects, uint64_t n) {
  return guarded(__func__, [&] {
    require(path, "path");
    store::Store::write(path, objects_of(objects, n));
  });
}

sa_status sa_store_append(const char* path, const sa_store_object* objects, uint64_t n) {
  return guarded(__func__, [&] {
    require(path, "path");
    store::Store::append(path, objects_of(objects, n));
  });
}

sa_status sa_store_open(const char* path, sa_store_mode mode, const sa_options* placement, sa_store** out) {
  return guarded(__func__, [&] {
    require(path, "path");
    require(out, "out");
    std::int32_t raw = 0;
    std::memcpy(&raw, &mode, sizeof raw);
    if (raw != SA_STORE_MAP && raw != SA_STORE_LOAD) {
      throw_error(ErrorCode::invalid_argument, "mode " + std::to_string(raw) + " is neither SA_STORE_MAP (0) nor SA_STORE_LOAD (1)");
    }
    const ArrayOptions options = placement_of(placement);
    *out = handle_of(store::Store::open(path, raw == SA_STORE_MAP ? store::Mode::map : store::Mode::load, options));
  });
}

void sa_store_close(sa_store* s) { delete s; }

uint64_t sa_store_count(const sa_store* s) { return s == nullptr ? 0 : s->names.size(); }

const char* sa_store_name(const sa_store* s, uint64_t i) {
  if (s == nullptr || i >= s->names.size()) return nullptr;
  return s->names[i].c_str();
}

sa_status sa_store_kind(const sa_store* s, const char* name, sa_store_object_kind* kind) {
  return guarded(__func__, [&] {
    const store::Store& opened = store_of(s);
    require(name, "name");
    require(kind, "kind");
    *kind = static_cast<sa_store_object_kind>(opened.kind(name));
  });
}

sa_status sa_store_array(const sa_store* s, const char* name, sa_array** out) {
  return guarded(__func__, [&] {
    const store::Store& opened = store_of(s);
    require(name, "name");
    require(out, "out");
    *out = new sa_array(opened.array(name), s->store);
  });
}

sa_status sa_store_graph(const sa_store* s, const char* name, sa_graph** out) {
  return guarded(__func__, [&] {
    const store::Store& opened = store_of(s);
    require(name, "name");
    require(out, "out");
    *out = new sa_graph(opened.graph(name), s->store);
  });
}

sa_status sa_store_verify(const char* path, int32_t deep, uint64_t* problems) {
  return guarded(__func__, [&] {
    require(path, "path");
    require(problems, "problems");
    *problems = store::verify(path, deep != 0).problems.size();
  });
}

sa_status sa_store_send(int32_t fd, const sa_store_object* objects, uint64_t n) {
  return guarded(__func__, [&] { store::Store::send(fd, objects_of(objects, n)); });
}

sa_status sa_store_send_file(int32_t fd, const char* path) {
  return guarded(__func__, [&] {
    require(path, "path");
    store::Store::send_file(fd, path);
  });
}

sa_status sa_store_recv(int32_t fd, const sa_options* placement, uint64_t max_bytes, sa_store** out) {
  return guarded(__func__, [&] {
    require(out, "out");
    store::ReceiveOptions options;
    options.placement = placement_of(placement);
    options.max_bytes = max_bytes;
    *out = handle_of(store::Store::receive(fd, options));
  });
}

sa_status sa_receiver_new(const sa_options* placement, uint64_t max_bytes, sa_receiver** out) {
  return guarded(__func__, [&] {
    require(out, "out");
    store::ReceiveOptions options;
    options.placement = placement_of(placement);
    options.max_bytes = max_bytes;
    *out = new sa_receiver{store::Receiver(options)};
  });
}

void sa_receiver_free(sa_receiver* r) { delete r; }

sa_status sa_receiver_recv(sa_receiver* r, int32_t fd, sa_store** out) {
  return guarded(__func__, [&] {
    require(r, "r");
    require(out, "out");
    *out = handle_of(r->receiver.receive(fd));
  });
}

sa_status sa_receiver_stats(const sa_receiver* r, uint64_t* reserved_bytes, uint64_t* reuses) {
  return guarded(__func__, [&] {
    require(r, "r");
    if (reserved_bytes != nullptr) *reserved_bytes = r->receiver.reserved_bytes();
    if (reuses != nullptr) *reuses = r->receiver.reuses();
  });
}

}  // extern "C"
