// The diesel view of migrations/billing (the replica's tables live in coffer-directory).

diesel::table! {
    subscription_plans (uuid) {
        uuid -> Text,
        organisation_uuid -> Text,
        account_uuid -> Nullable<Text>,
        name -> Text,
        is_default -> Bool,
        dunning_configuration -> Text,
        notification_configuration -> Text,
        created -> BigInt,
        updated -> BigInt,
    }
}
