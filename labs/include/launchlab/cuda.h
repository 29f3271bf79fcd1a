#pragma once
/// @file
/// Given code for every lab after 00: checking CUDA runtime calls, and
/// owners of the runtime's objects that release them on every way out.
/// Lab 00 has the learner write the check itself; the labs after it use
/// this one.

#include <cuda_runtime_api.h>

#include <cstddef>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>

namespace launchlab::cuda {

/// A CUDA runtime call that did not return cudaSuccess. what() names the
/// call and gives CUDA's own words for the error, for example
/// `cudaMalloc failed: cudaErrorMemoryAllocation: out of memory`.
class Error : public std::runtime_error {
 public:
  /// @param status what the call returned
  /// @param call the call as the message should name it, e.g. "cudaMalloc"
  Error(cudaError_t status, std::string_view call)
      : std::runtime_error(std::string(call) + " failed: " + cudaGetErrorName(status) + ": " +
                           cudaGetErrorString(status)),
        status_(status) {}

  /// What the call returned.
  cudaError_t status() const noexcept { return status_; }

 private:
  cudaError_t status_;
};

/// Throws Error naming `call` when `status` is not cudaSuccess.
///
///     check(cudaMemcpy(to, from, bytes, cudaMemcpyDeviceToHost), "cudaMemcpy (the result)");
///
/// A kernel launch returns nothing: check cudaGetLastError() after it.
inline void check(cudaError_t status, std::string_view call) {
  if (status != cudaSuccess) throw Error(status, call);
}

namespace detail {

// The ownership that every wrapper below shares: one handle, released by
// Release when the owner goes, moved but never copied.
template <class Handle, cudaError_t (*Release)(Handle)>
class Owner {
 public:
  Owner() = default;
  explicit Owner(Handle handle) : handle_(handle) {}
  ~Owner() { reset(); }
  Owner(const Owner&) = delete;
  Owner& operator=(const Owner&) = delete;
  Owner(Owner&& other) noexcept : handle_(std::exchange(other.handle_, Handle{})) {}
  Owner& operator=(Owner&& other) noexcept {
    if (this != &other) {
      reset();
      handle_ = std::exchange(other.handle_, Handle{});
    }
    return *this;
  }
  Handle get() const noexcept { return handle_; }

 private:
  // A release that fails has nothing left to do: a destructor cannot throw.
  void reset() noexcept {
    if (handle_ != Handle{}) static_cast<void>(Release(handle_));
    handle_ = Handle{};
  }
  Handle handle_{};
};

}  // namespace detail

namespace detail {

// What both kinds of buffer are: memory for `count` objects of T, released
// by Free. Only the allocation differs.
template <class T, cudaError_t (*Free)(void*)>
class Buffer {
 public:
  T* get() const noexcept { return static_cast<T*>(memory_.get()); }
  std::size_t size() const noexcept { return count_; }
  std::size_t bytes() const noexcept { return count_ * sizeof(T); }

 protected:
  Buffer(cudaError_t (*allocate)(void**, std::size_t), std::string_view call, std::size_t count) : count_(count) {
    void* memory = nullptr;
    check(allocate(&memory, count * sizeof(T)), call);
    memory_ = Owner<void*, Free>(memory);
  }

 private:
  Owner<void*, Free> memory_;
  std::size_t count_;
};

}  // namespace detail

/// Device memory for `count` objects of T (cudaMalloc), freed on every way
/// out. Its contents are not initialised. get() is the device address of
/// the first object, size() the count and bytes() size() * sizeof(T).
template <class T>
class DeviceBuffer : public detail::Buffer<T, cudaFree> {
 public:
  /// @throws Error when cudaMalloc fails
  explicit DeviceBuffer(std::size_t count) : detail::Buffer<T, cudaFree>(cudaMalloc, "cudaMalloc", count) {}
};

/// Page-locked host memory for `count` objects of T (cudaMallocHost), which
/// copies to and from the device reach without staging; freed on every way
/// out. Its contents are not initialised. get() is the host address of the
/// first object, size() the count and bytes() size() * sizeof(T).
template <class T>
class PinnedBuffer : public detail::Buffer<T, cudaFreeHost> {
 public:
  /// @throws Error when cudaMallocHost fails
  explicit PinnedBuffer(std::size_t count) : detail::Buffer<T, cudaFreeHost>(cudaMallocHost, "cudaMallocHost", count) {}
};

namespace detail {

// What a stream and an event both are: a handle made with flags by Create,
// released by Destroy, and passed to the runtime as itself.
template <class Handle, cudaError_t (*Create)(Handle*, unsigned), cudaError_t (*Destroy)(Handle)>
class Created {
 public:
  Handle get() const noexcept { return handle_.get(); }
  operator Handle() const noexcept { return get(); }

 protected:
  Created(unsigned flags, std::string_view call) {
    Handle handle{};
    check(Create(&handle, flags), call);
    handle_ = Owner<Handle, Destroy>(handle);
  }

 private:
  Owner<Handle, Destroy> handle_;
};

}  // namespace detail

/// A CUDA stream (cudaStreamCreateWithFlags), destroyed on every way out.
/// Non-blocking by default, so that work in it never waits implicitly for
/// the legacy default stream. get(), or the stream itself, is the
/// cudaStream_t for a launch or a runtime call.
class Stream : public detail::Created<cudaStream_t, cudaStreamCreateWithFlags, cudaStreamDestroy> {
 public:
  /// @param flags cudaStreamNonBlocking or cudaStreamDefault
  /// @throws Error when the stream cannot be created
  explicit Stream(unsigned flags = cudaStreamNonBlocking) : Created(flags, "cudaStreamCreateWithFlags") {}
};

/// A CUDA event (cudaEventCreateWithFlags), destroyed on every way out.
/// get(), or the event itself, is the cudaEvent_t for cudaEventRecord and
/// the calls that wait on it.
class Event : public detail::Created<cudaEvent_t, cudaEventCreateWithFlags, cudaEventDestroy> {
 public:
  /// @param flags cudaEventDefault (timing), or an OR of
  ///   cudaEventDisableTiming and cudaEventBlockingSync
  /// @throws Error when the event cannot be created
  explicit Event(unsigned flags = cudaEventDefault) : Created(flags, "cudaEventCreateWithFlags") {}
};

}  // namespace launchlab::cuda
