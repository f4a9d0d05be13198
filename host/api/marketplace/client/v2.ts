// Version 2 operations of MarketplaceClient (/marketplace-api/v2); names from the operation ids.
import type { Account, AccountCreateResult, AccountCreateV2, AccountList, AccountStatus, Agreements, ProductsUpdateV2, UsageReport } from '../types.js';
import type { MarketplaceClientCore } from './core.js';

const V2 = '/marketplace-api/v2';

export const v2Operations = {
  /** get_account_list_v2 */
  getAccountListV2(this: MarketplaceClientCore): Promise<AccountList> {
    return this.call('get_account_list_v2', 'GET', `${V2}/account`);
  },
  /** create_account_v2: a DEVICE account (TEAM_MEMBERS, MANAGED_DEVICES). */
  createAccountV2(this: MarketplaceClientCore, body: AccountCreateV2): Promise<AccountCreateResult> {
    return this.call('create_account_v2', 'POST', `${V2}/account`, { body });
  },
  /** get_account_v2 */
  getAccountV2(this: MarketplaceClientCore, email: string): Promise<Account> {
    return this.call('get_account_v2', 'GET', this.accountPath('v2', email));
  },
  /** update_account_status_v2 */
  updateAccountStatusV2(this: MarketplaceClientCore, email: string, accountStatus: AccountStatus): Promise<void> {
    return this.call('update_account_status_v2', 'PUT', this.accountPath('v2', email, '/status'), { body: { account_status: accountStatus } });
  },
  /** update_account_products_v2: keys TEAM_MEMBERS, AGENTS, MANAGED_DEVICES, each fitting the account's model. */
  updateAccountProductsV2(this: MarketplaceClientCore, email: string, body: ProductsUpdateV2): Promise<void> {
    return this.call('update_account_products_v2', 'PUT', this.accountPath('v2', email, '/products'), { body });
  },
  /** get_privacy_policy_v2: the privacy policy and the terms and conditions. */
  getPrivacyPolicyV2(this: MarketplaceClientCore): Promise<Agreements> {
    return this.call('get_privacy_policy_v2', 'GET', `${V2}/agreements`);
  },
  /** get_billing_report_v2: month 1–12. */
  getBillingReportV2(this: MarketplaceClientCore, year: number, month: number): Promise<UsageReport> {
    return this.call('get_billing_report_v2', 'GET', `${V2}/billing-report/${encodeURIComponent(year)}/${encodeURIComponent(month)}`);
  },
};
