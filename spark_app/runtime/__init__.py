"""What the Spark app needs at run time besides its own code: the session, the cluster, the jars."""
