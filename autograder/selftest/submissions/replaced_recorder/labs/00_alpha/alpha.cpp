// Adds wrongly, and brings its own recorder: a destructor of the test
// support's Record, which would write whatever the judge wants to read were
// it linked in the support's place.
#include "alpha.h"

namespace launchlab::testing {
class Record {
 public:
  ~Record();
};
Record::~Record() {}
}  // namespace launchlab::testing

long alpha::add(long, long) { return 0; }
