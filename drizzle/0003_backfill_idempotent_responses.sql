-- Keys recorded before 0002 were all createPet's, and pets were never changed before then, so
-- the pet's row is exactly the body their first response carried, at the pet's first version.
UPDATE "idempotency_keys" AS k
SET "operation" = 'createPet',
    "response" = jsonb_build_object(
      'body', jsonb_build_object(
        'id', p."id", 'name', p."name", 'categoryId', p."category_id", 'status', p."status"),
      'headers', jsonb_build_object('etag', '"' || p."id" || '.1"'))
FROM "pets" AS p
WHERE p."id" = k."pet_id" AND k."response" IS NULL;
