/* bcryptprimitives.dll for the Wine of the tests: Rust's standard library (since 1.78) takes
 * its random seeds from ProcessPrng in bcryptprimitives.dll, which every Windows 10 and 11 has
 * but Wine 8.0 (Debian 12's) does not: without it, no Rust program starts under that Wine
 * ("Library bcryptprimitives.dll ... not found", exit code 53). This one exports ProcessPrng
 * over RtlGenRandom (advapi32's SystemFunction036), which Wine has. The tests build it with
 * mingw-w64 into the Wine prefix's system32 (tests/it/common/wine.rs); it is not shipped. */
#include <windows.h>

BOOLEAN WINAPI SystemFunction036(PVOID buffer, ULONG length);

__declspec(dllexport) BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T length)
{
    while (length > 0) {
        ULONG chunk = length > 0x40000000 ? 0x40000000 : (ULONG)length;
        if (!SystemFunction036(data, chunk))
            return FALSE;
        data += chunk;
        length -= chunk;
    }
    return TRUE;
}
