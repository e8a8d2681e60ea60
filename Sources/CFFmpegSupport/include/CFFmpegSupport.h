// Placeholder: the C glue over FFmpeg (see BlazeVideoIO).
#pragma once
int bfv_version(void);
