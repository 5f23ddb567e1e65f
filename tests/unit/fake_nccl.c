/* fake_nccl.c: a stand-in libnccl.so.2 for test_deepspeed_queries: exports
 * NCCL's version query, answering the code the test stores in
 * fake_nccl_version_code. */
int fake_nccl_version_code = 22105;

int ncclGetVersion(int *version);

int ncclGetVersion(int *version)
{
    *version = fake_nccl_version_code;
    return 0;
}
