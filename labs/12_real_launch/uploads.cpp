// Part C: inline-to-memory uploads, and the QMDs SEND_PCAS_A hands over.
//
// clcbc0.h (HOPPER_COMPUTE_A): OFFSET_OUT_UPPER (0x188) and OFFSET_OUT
// (0x18c) say where, LINE_LENGTH_IN (0x180) how many bytes, LINE_COUNT
// (0x184) how many lines; LAUNCH_DMA (0x1b0) starts the upload and the
// LOAD_INLINE_DATA (0x1b4) words that follow carry the bytes.
#include "real_launch.h"

namespace launchlab::real_launch {

std::vector<InlineUpload> inline_uploads(std::span<const channels::MethodGroup> groups) {
  // TODO(student): walk every method call of every group (lab 06's
  // channels::method_calls), keeping for each subchannel the destination
  // (OFFSET_OUT_UPPER bits 24:0 are address bits 56:32), the line length and
  // the line count. LAUNCH_DMA opens an upload of LINE_LENGTH_IN bytes: that
  // many bytes, rounded up to whole words, of LOAD_INLINE_DATA follow on the
  // same subchannel; keep the bytes little-endian and cut them to the line
  // length. Throw LaunchError for data with no upload open, LAUNCH_DMA with
  // one still open, LINE_COUNT other than 1, or an upload open at the end.
  (void)groups;
  return {};
}

std::vector<QmdLaunch> qmd_launches(std::span<const channels::MethodGroup> groups,
                                    std::span<const InlineUpload> uploads, qmd::QmdVersion version) {
  // TODO(student): for each SEND_PCAS_A (its value is the QMD address >> 8),
  // find the last upload before its group that wrote qmd::qmd_words(version)
  // words at that address, decode them with lab 07's qmd::decode, read
  // QMD_TYPE with qmd::read_field (MW(25:23) in V04_00, MW(153:151) in
  // V05_00), and take PCAS_ACTION from the SEND_SIGNALING_PCAS2_B that
  // follows on the same subchannel. Throw LaunchError when no upload wrote
  // the QMD or no SEND_SIGNALING_PCAS2_B follows.
  (void)groups;
  (void)uploads;
  (void)version;
  return {};
}

}  // namespace launchlab::real_launch
