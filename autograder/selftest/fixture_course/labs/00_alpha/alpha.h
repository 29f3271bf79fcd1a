#pragma once
/// Returns a + b.
long add(long a, long b);
