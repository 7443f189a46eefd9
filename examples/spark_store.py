"""Read a monapi store with Spark (pyspark in local mode): each kind's rows, tasks and days, and
each task's rows and the sum of its main measure.

The store is plain Hive-partitioned Parquet (``monapi sync DIR``, ``client.sync``): Spark reads
each kind's directory as one table, ``day`` coming from the directory names and every integer
column (``task_id``, ``monitor_id``, ``duration_s``) as a ``bigint``.

    pip install pyspark    # Spark 4 runs on Java 17 or later (Debian: openjdk-17-jre-headless)
    python examples/spark_store.py data/monapi

A store in a bucket (``s3a://``) needs Hadoop's S3 connector (``hadoop-aws``) on Spark's class
path, which pyspark does not ship; Dask, polars, DuckDB and pyarrow read ``s3://`` as they are.
"""

from __future__ import annotations

import argparse
import os
import sys

from pyspark.sql import SparkSession
from pyspark.sql import functions as F

# Each kind of table the store keeps, and the measure summed per task.
KINDS = {
    "service_report": "value",
    "site_availability": "uprate",
    "site_response_time": "resptime_avg",
    "site_faults": "duration_s",
}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("store", help="the store's directory (monapi sync DIR)")
    parser.add_argument("--master", default="local[2]", help="Spark's master (default local[2])")
    args = parser.parse_args()
    if not os.path.isfile(os.path.join(args.store, "store.json")):
        parser.error(f"{args.store} is no store: it has no store.json")

    # --8<-- [start:session]
    spark = (
        SparkSession.builder.master(args.master)  # local[2]: two cores of this machine
        .appName("monapi-store")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "2")
        .getOrCreate()
    )
    # --8<-- [end:session]
    try:
        for kind, measure in KINDS.items():
            path = os.path.join(args.store, kind)
            if not os.path.isdir(path):
                print(f"{kind}: not in the store")
                continue
            frame = spark.read.parquet(path)  # e.g. data/monapi/service_report
            per_task = (
                frame.groupBy("task_id")
                .agg(
                    F.count("*").alias("rows"),
                    F.sum(measure).alias("total"),
                    F.min("day").alias("first"),
                    F.max("day").alias("last"),
                )
                .orderBy("task_id")
                .collect()
            )
            rows = sum(task["rows"] for task in per_task)
            first = min((task["first"] for task in per_task), default=None)
            last = max((task["last"] for task in per_task), default=None)
            print(
                f"{kind}: {rows} rows of {len(per_task)} tasks, days {first} to {last},"
                f" task_id {dict(frame.dtypes)['task_id']}"
            )
            for task in per_task:
                total = task["total"] or 0
                print(f"  task {task['task_id']}: {task['rows']} rows, sum({measure}) {total:.3f}")
    finally:
        spark.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
