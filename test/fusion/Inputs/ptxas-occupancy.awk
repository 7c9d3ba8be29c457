# Reads `ptxas -v` output; prints each vfuse_ entry's registers and the warps per SM
# they allow on sm_90 at 256-thread blocks (65536 registers allocated per warp in units of
# 256, 228 KiB of shared memory with 1 KiB reserved per block, at most 8 such blocks).
/Compiling entry function/ {
  name = $0; sub(/.*function '/, "", name); sub(/'.*/, "", name)
}
/Used [0-9]+ registers/ && name ~ /^vfuse_/ {
  regs = $0; sub(/.*Used /, "", regs); sub(/ registers.*/, "", regs)
  smem = 0
  if ($0 ~ /bytes smem/) { smem = $0; sub(/ bytes smem.*/, "", smem); sub(/.*, /, "", smem) }
  per_warp = int((regs * 32 + 255) / 256) * 256
  blocks = int(65536 / (per_warp * 8)); if (blocks > 8) blocks = 8
  if (smem > 0) { b = int(233472 / (smem + 1024)); if (b < blocks) blocks = b }
  print name, blocks * 8 " warps per SM"
  name = ""
}
