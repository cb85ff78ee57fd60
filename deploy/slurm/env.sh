# The object store the run is kept on; sourced by the jobs of this folder.
# (sbatch passes the submitting shell's environment to the jobs; keep the
# secret out of the job scripts.)
export SUMITO_RUN=s3://sumito/runs/std
export AWS_REGION=us-east-1
# export AWS_ENDPOINT_URL=https://storage.example.org   # another store than AWS S3
# export AWS_ACCESS_KEY_ID=... AWS_SECRET_ACCESS_KEY=...  # or however your site hands out secrets
export OMP_WAIT_POLICY=PASSIVE
# A node-local folder for each process's working files.
export SUMITO_CACHE_DIR=${TMPDIR:-/tmp}/sumito-cache
