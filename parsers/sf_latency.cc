#include "parsers/sf_latency.h"
