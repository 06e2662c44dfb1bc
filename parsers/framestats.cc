#include "parsers/framestats.h"
