--num-layers 96 \
--hidden-size 12288 \
--ffn-hidden-size 49152 \
--num-attention-heads 96 \
--max-position-embeddings 2048 \
--position-embedding-type learned_absolute \
--normalization LayerNorm \
--tensor-model-parallel-size 4 \
--pipeline-model-parallel-size 8 \
--num-virtual-stages-per-pipeline-rank 12 \
--context-parallel-size 1 \
--sequence-parallel \
--tp-comm-overlap \
--micro-batch-size 2 \
--global-batch-size 1536 \
--seq-length 2048 \
--train-samples 146484375 \
--use-distributed-optimizer \
--overlap-grad-reduce \
--overlap-param-gather \
--bf16
# costmodel: gpt3-175b on 1024 x a100-80gb (fat-tree): predicted step 16.78 s, 197 TFLOP/s per GPU, MFU 63.1%
# not set here: the tokenizer and data, the learning-rate schedule

--num-layers 96 \
--hidden-size 12288 \
--ffn-hidden-size 49152 \
--num-attention-heads 96 \
--max-position-embeddings 2048 \
--position-embedding-type learned_absolute \
--normalization LayerNorm \
--tensor-model-parallel-size 4 \
--pipeline-model-parallel-size 8 \
--num-virtual-stages-per-pipeline-rank 12 \
--context-parallel-size 2 \
--sequence-parallel \
--tp-comm-overlap \
--micro-batch-size 4 \
--global-batch-size 1536 \
--seq-length 2048 \
--train-samples 146484375 \
--use-distributed-optimizer \
--overlap-grad-reduce \
--overlap-param-gather \
--bf16
# costmodel: gpt3-175b on 1024 x a100-80gb (fat-tree): predicted step 16.87 s, 196 TFLOP/s per GPU, MFU 62.8%
# not set here: the tokenizer and data, the learning-rate schedule
