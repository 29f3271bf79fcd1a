// tuning_sweep: the measurements behind chapter 11's figures, made with the
// lab's kernel families and the lab's own choose_* (built with the solution by
// autograder/gpu-run.sh 11). Writes two CSV files and prints the copy and vadd bandwidths.
// Bandwidth counts bytes the program asks to move: a copy of N bytes reads N
// and writes N (2N); vadd reads a and b and writes c, 12 bytes per float.
// Configurations the device cannot launch are rows of kind not_launchable
// with empty times.
//
/*
    nvcc -std=c++20 -O2 -arch=native -I labs/11_occupancy \
         labs/11_occupancy/tools/tuning_sweep.cu \
         <build>/labs/11_occupancy/liblab_11_occupancy.a -o tuning_sweep
*/
//   ./tuning_sweep vadd_tuning.csv heavy_tuning.csv

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <exception>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "event_timer.h"
#include "occupancy.h"
#include "tuning.h"

namespace lo = launchlab::occupancy;

namespace {

// The median of `runs` timed calls, after one untimed call.
float median_ms(const std::function<void()>& launch, int runs) { return lo::EventTimer().median(launch, runs); }

void check(cudaError_t status, const char* what) {
  if (status != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(status));
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s VADD_CSV HEAVY_CSV\n", argv[0]);
    return 2;
  }
  try {
    int device = 0;
    cudaDeviceProp prop{};
    check(cudaGetDevice(&device), "cudaGetDevice");
    check(cudaGetDeviceProperties(&prop, device), "cudaGetDeviceProperties");
    const std::string header = std::string("# ") + prop.name + ", sm_" + std::to_string(prop.major * 10 + prop.minor) +
                               "\n# made by: tuning_sweep (labs/11_occupancy/tools/tuning_sweep.cu), "
                               "the lab built from solutions/\n";

    // vadd on 2^28 floats.
    const std::size_t n = std::size_t{1} << 28;
    float *a = nullptr, *b = nullptr, *c = nullptr;
    check(cudaMalloc(reinterpret_cast<void**>(&a), n * 4), "cudaMalloc");
    check(cudaMalloc(reinterpret_cast<void**>(&b), n * 4), "cudaMalloc");
    check(cudaMalloc(reinterpret_cast<void**>(&c), n * 4), "cudaMalloc");
    check(cudaMemset(a, 0, n * 4), "cudaMemset");
    check(cudaMemset(b, 0, n * 4), "cudaMemset");
    FILE* vadd_csv = std::fopen(argv[1], "w");
    if (!vadd_csv) throw std::runtime_error(std::string("cannot write ") + argv[1]);
    std::fprintf(vadd_csv, "%skind,vector_width,unroll,block_size,grid_size,median_ms,tb_per_s\n", header.c_str());
    const float copy_ms =
        median_ms([&] { cudaMemcpyAsync(c, a, n * 4, cudaMemcpyDeviceToDevice); }, 11);
    const double copy_tbps = 2.0 * n * 4 / (copy_ms * 1e-3) / 1e12;
    std::fprintf(vadd_csv, "copy,0,0,0,0,%.5f,%.4f\n", copy_ms, copy_tbps);
    for (int width : {1, 2, 4}) {
      for (int unroll : {1, 2, 4, 8}) {
        for (int block : {128, 256, 512, 1024}) {
          const int wave = prop.multiProcessorCount * (prop.maxThreadsPerMultiProcessor / block);
          // A block above the variant's maxThreadsPerBlock cannot launch (too
          // many registers for the block): recorded as not_launchable, with
          // no time, and not tried.
          cudaFuncAttributes attributes{};
          check(cudaFuncGetAttributes(&attributes, lo::vadd_kernel(width, unroll)), "cudaFuncGetAttributes");
          if (block > attributes.maxThreadsPerBlock) {
            std::printf("vadd {%d, %d, %d}: not launchable, maxThreadsPerBlock %d (%d registers per thread)\n",
                        width, unroll, block, attributes.maxThreadsPerBlock, attributes.numRegs);
            for (int grid : {0, wave, 4 * wave}) {
              std::fprintf(vadd_csv, "not_launchable,%d,%d,%d,%d,,\n", width, unroll, block, grid);
            }
            continue;
          }
          for (int grid : {0, wave, 4 * wave}) {
            const lo::VaddConfig cfg{width, unroll, block, grid};
            float ms = 0;
            try {
              ms = median_ms([&] { lo::launch_vadd(cfg, a, b, c, n); }, 7);
            } catch (const std::runtime_error& e) {
              // Any other failure to launch: recorded, and the sweep goes on.
              std::printf("vadd {%d, %d, %d, %d}: %s\n", width, unroll, block, grid, e.what());
              std::fprintf(vadd_csv, "not_launchable,%d,%d,%d,%d,,\n", width, unroll, block, grid);
              cudaGetLastError();
              continue;
            }
            std::fprintf(vadd_csv, "search,%d,%d,%d,%d,%.5f,%.4f\n", width, unroll, block, grid, ms,
                         3.0 * n * 4 / (ms * 1e-3) / 1e12);
          }
        }
      }
    }
    const lo::VaddConfig chosen = lo::choose_vadd_config(n);
    const float chosen_ms = median_ms([&] { lo::launch_vadd(chosen, a, b, c, n); }, 11);
    const double chosen_tbps = 3.0 * n * 4 / (chosen_ms * 1e-3) / 1e12;
    std::fprintf(vadd_csv, "chosen,%d,%d,%d,%d,%.5f,%.4f\n", chosen.vector_width, chosen.unroll, chosen.block_size,
                 chosen.grid_size, chosen_ms, chosen_tbps);
    std::fclose(vadd_csv);
    std::printf("device-to-device copy: %.3f TB/s (%.4f ms for 2 x 1 GiB moved)\n", copy_tbps, copy_ms);
    std::printf("reference vadd {%d, %d, %d, %d}: %.3f TB/s (%.4f ms, 12 bytes per element), %.1f%% of the copy\n",
                chosen.vector_width, chosen.unroll, chosen.block_size, chosen.grid_size, chosen_tbps, chosen_ms,
                100 * chosen_tbps / copy_tbps);
    cudaFree(a);
    cudaFree(b);
    cudaFree(c);

    // The heavy kernel on 2^22 elements.
    const std::size_t m = std::size_t{1} << 22;
    float *in = nullptr, *out = nullptr;
    check(cudaMalloc(reinterpret_cast<void**>(&in), m * 4), "cudaMalloc");
    check(cudaMalloc(reinterpret_cast<void**>(&out), m * 4), "cudaMalloc");
    check(cudaMemset(in, 0, m * 4), "cudaMemset");
    FILE* heavy_csv = std::fopen(argv[2], "w");
    if (!heavy_csv) throw std::runtime_error(std::string("cannot write ") + argv[2]);
    std::fprintf(heavy_csv,
                 "%skind,block_size,min_blocks_per_sm,registers,local_bytes,active_blocks_per_sm,occupancy,grid_size,"
                 "median_ms\n",
                 header.c_str());
    auto heavy_row = [&](const char* kind, const lo::HeavyConfig& cfg) {
      cudaFuncAttributes attr{};
      check(cudaFuncGetAttributes(&attr, lo::heavy_kernel(cfg.block_size, cfg.min_blocks_per_sm)),
            "cudaFuncGetAttributes");
      int per_sm = 0;
      check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
                &per_sm, lo::heavy_kernel(cfg.block_size, cfg.min_blocks_per_sm), cfg.block_size, 0),
            "cudaOccupancyMaxActiveBlocksPerMultiprocessor");
      const float ms = median_ms([&] { lo::launch_heavy(cfg, in, out, m); }, 5);
      const double occupancy = static_cast<double>(per_sm * cfg.block_size) / prop.maxThreadsPerMultiProcessor;
      std::fprintf(heavy_csv, "%s,%d,%d,%d,%zu,%d,%.4f,%d,%.5f\n", kind, cfg.block_size, cfg.min_blocks_per_sm,
                   attr.numRegs, attr.localSizeBytes, per_sm, occupancy, lo::heavy_grid_size(cfg, m), ms);
      return per_sm;
    };
    for (const lo::HeavyVariant& v : lo::kHeavyVariants) {
      int per_sm = 0;
      check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, lo::heavy_kernel(v.block_size, v.min_blocks_per_sm),
                                                          v.block_size, 0),
            "cudaOccupancyMaxActiveBlocksPerMultiprocessor");
      const int wave = prop.multiProcessorCount * std::max(per_sm, 1);
      for (int grid : {0, wave, 2 * wave, 4 * wave}) heavy_row("search", {v.block_size, v.min_blocks_per_sm, grid});
    }
    const lo::HeavyConfig heavy = lo::choose_heavy_config(m);
    heavy_row("chosen", heavy);
    std::fclose(heavy_csv);
    check(cudaGetLastError(), "the launches");
    cudaFree(in);
    cudaFree(out);
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "tuning_sweep: %s\n", e.what());
    return 1;
  }
}
